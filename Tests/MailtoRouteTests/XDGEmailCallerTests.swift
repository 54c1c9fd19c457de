import MailtoRoute
import Testing

/// Who asked when xdg-email runs its hook (XDGEmailCaller.judge), in-process, on process
/// facts as `/proc` shows them for the callers that really run xdg-email: Chromium (a web
/// page's link), LibreOffice's senddoc (alive, or gone and leaving its app scope behind),
/// a person's `xdg-email --attach` in a terminal, and the chains that cannot be read.
@Suite struct XDGEmailCallerTests {
    static let user: UInt32 = 1000
    static let script = "/usr/lib/libreoffice/program/senddoc"

    static func xdgEmail(_ arguments: [String], parent: Int32 = 200, unit: String? = nil, uid: UInt32 = user) -> ProcessFacts {
        ProcessFacts(pid: 300, parent: parent, uid: uid, startTime: 5000, executable: "/usr/bin/dash",
                     arguments: ["/bin/sh", "/usr/bin/xdg-email"] + arguments, workingDirectory: "/home/ann/Documents",
                     appUnit: unit)
    }

    static let chromium = ProcessFacts(
        pid: 200, parent: 100, uid: user, startTime: 4000, executable: "/usr/lib/chromium/chromium",
        arguments: ["/usr/lib/chromium/chromium", "--no-sandbox"], appUnit: "app-gnome-chromium-4242.scope")
    static let senddoc = ProcessFacts(
        pid: 200, parent: 100, uid: user, startTime: 4000, executable: "/usr/bin/dash",
        arguments: ["/bin/sh", script, "--mailclient", "sensible-lomua", "--attach", "/tmp/lu1.tmp/report.odt"],
        appUnit: #"app-gnome-libreoffice\x2dwriter-4242.scope"#)
    static let terminal = ProcessFacts(
        pid: 200, parent: 100, uid: user, startTime: 4000, executable: "/usr/bin/bash", arguments: ["bash"])
    static let userManager = ProcessFacts(
        pid: 2, parent: 1, uid: user, startTime: 100, executable: "/usr/lib/systemd/systemd", arguments: ["/lib/systemd/systemd", "--user"])

    static let url = "mailto:support@evil.example?attach=file:///home/ann/.ssh/id_rsa"

    func judge(_ xdgEmail: ProcessFacts?, _ caller: ProcessFacts?, owner: UInt32 = 0) -> AttachmentTrust {
        XDGEmailCaller.judge(xdgEmail: xdgEmail, caller: caller, ownUID: Self.user, fileOwner: { _ in owner },
                             resolve: { path in path.replacingOccurrences(of: "/./", with: "/") })
    }

    @Test func aWebPageThroughChromiumIsTrustedWithNothingAndNamesChromium() {
        let trust = judge(Self.xdgEmail([Self.url], parent: 200, unit: Self.chromium.appUnit), Self.chromium)
        #expect(trust == AttachmentTrust(files: .only([]), requester: "Chromium"))
    }

    @Test func xdgEmailsOwnAttachOptionsAreTrustedAndNothingElse() {
        let trust = judge(Self.xdgEmail(["--subject", "--attach", "--attach", "./report.pdf", "--attach", "/srv/a.txt",
                                         "ann@example.org"]), Self.terminal)
        // "--attach" after --subject is the subject's value, not an option.
        #expect(trust.files == .only(["/home/ann/Documents/report.pdf", "/srv/a.txt"]))
        #expect(trust.requester == "bash")
    }

    /// An --attach name that is not UTF-8 is trusted under its bytes (a `LocalPath`), not
    /// as the U+FFFD that `arguments` shows.
    @Test func anAttachNameThatIsNotUTF8IsTrustedUnderItsBytes() {
        var facts = Self.xdgEmail(["--attach", "/srv/caf\u{FFFD}.txt", "ann@example.org"])
        facts.argumentBytes[3] = Array("/srv/caf".utf8) + [0xE9] + Array(".txt".utf8)
        #expect(judge(facts, Self.terminal).files == .only(["file:///srv/caf%E9.txt"]))
    }

    @Test func senddocAsTheParentIsLibreOffice() {
        #expect(judge(Self.xdgEmail([Self.url]), Self.senddoc) == AttachmentTrust(files: .all, requester: "LibreOffice"))
    }

    /// A senddoc a user could write is not the system's LibreOffice.
    @Test func aSenddocThatIsNotTheSystemsIsNotTrusted() {
        let trust = judge(Self.xdgEmail([Self.url]), Self.senddoc, owner: Self.user)
        #expect(trust == AttachmentTrust(files: .only([]), requester: "senddoc"))
        var elsewhere = Self.senddoc
        elsewhere.arguments[1] = "/home/ann/bin/program/senddoc"
        #expect(judge(Self.xdgEmail([Self.url]), elsewhere).files == .only([]))
    }

    /// Debian's senddoc starts xdg-email in the background and exits: xdg-email is init's
    /// (or the user manager's) then, and still in LibreOffice's app scope.
    @Test(arguments: [nil, userManager])
    func xdgEmailLeftInLibreOfficesScopeIsLibreOffice(caller: ProcessFacts?) {
        let orphan = Self.xdgEmail([Self.url], parent: caller?.pid ?? 1, unit: Self.senddoc.appUnit)
        #expect(judge(orphan, caller) == AttachmentTrust(files: .all, requester: "LibreOffice"))
        let flatpak = Self.xdgEmail([Self.url], parent: caller?.pid ?? 1, unit: "app-flatpak-org.libreoffice.LibreOffice-77.scope")
        #expect(judge(flatpak, caller).files == .all)
    }

    /// Fail closed: an orphan outside LibreOffice's scope (Qt's detached start leaves one),
    /// in a browser's scope, or with no scope at all.
    @Test(arguments: [nil, "app-gnome-chromium-4242.scope", "app-org.kde.konsole@3f2a.service", "session-2.scope"])
    func anOrphanOutsideLibreOfficeIsNotTrusted(unit: String?) {
        let trust = judge(Self.xdgEmail([Self.url], parent: 1, unit: unit), nil)
        #expect(trust.files == .only([]))
        #expect(trust.requester == (unit == "app-gnome-chromium-4242.scope" ? "Chromium"
            : unit == "app-org.kde.konsole@3f2a.service" ? "org.kde.konsole" : nil))
    }

    /// A browser LibreOffice started is in LibreOffice's scope, and alive: it is judged as
    /// itself.
    @Test func aBrowserInsideLibreOfficesScopeIsStillABrowser() {
        var chromium = Self.chromium
        chromium.appUnit = Self.senddoc.appUnit
        #expect(judge(Self.xdgEmail([Self.url], unit: Self.senddoc.appUnit), chromium).files == .only([]))
    }

    /// A parent that started after xdg-email got the pid of the one that exited.
    @Test func aParentYoungerThanXDGEmailIsNotItsCaller() {
        var reused = Self.senddoc
        reused.startTime = 6000
        #expect(judge(Self.xdgEmail([Self.url]), reused) == AttachmentTrust(files: .only([]), requester: nil))
    }

    @Test func anotherUsersOrAnUnreadableChainTrustsNothing() {
        #expect(judge(nil, nil) == .none)
        #expect(judge(Self.xdgEmail([Self.url], uid: 0), Self.senddoc) == .none)
        var otherUsers = Self.senddoc
        otherUsers.uid = 0
        #expect(judge(Self.xdgEmail([Self.url]), otherUsers).files == .only([]))
    }

    /// `open --xdg-email` run by something other than xdg-email.
    @Test func theHookRunByAnotherProgramTrustsNothing() {
        let trust = judge(Self.chromium, nil)
        #expect(trust == AttachmentTrust(files: .only([]), requester: "Chromium"))
    }

    @Test(arguments: [
        ("app-gnome-libreoffice\\x2dwriter-4242.scope", "libreoffice-writer"),
        ("app-org.libreoffice.LibreOffice.calc@9a7b.service", "org.libreoffice.LibreOffice.calc"),
        ("app-flatpak-org.chromium.Chromium-12.scope", "org.chromium.Chromium"),
        ("app-x-1.scope", "x"),
        ("app-12.scope", nil),
        ("session-3.scope", nil),
        ("user@1000.service", nil),
    ])
    func applicationIDOfAnAppUnit(unit: String, id: String?) {
        #expect(XDGEmailCaller.applicationID(ofUnit: unit) == id)
    }
}
