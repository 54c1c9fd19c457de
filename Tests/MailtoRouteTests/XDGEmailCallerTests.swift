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

    // MARK: - LibreOffice without a scope

    static let document = "/tmp/lu4321ab7.tmp/lu4321ab9.tmp/Budget 100%.odt"
    static let office = LibreOfficeDocuments.Office(
        process: ProcessFacts(pid: 4321, parent: 4300, uid: user, startTime: 3000,
                              executable: "/usr/lib/libreoffice/program/soffice.bin",
                              arguments: ["/usr/lib/libreoffice/program/soffice.bin", "--writer"]),
        openFiles: ["/home/ann/Documents/Budget 100%.odt", "/tmp/lu4321ab7.tmp/lu4321ab8.tmp"])

    /// Files of the system's (under /usr) are root's; the rest are the user's.
    func judgeOffices(_ xdgEmail: ProcessFacts?, _ caller: ProcessFacts?, requested: [String],
                      offices: [LibreOfficeDocuments.Office] = [office]) -> AttachmentTrust {
        XDGEmailCaller.judge(xdgEmail: xdgEmail, caller: caller, ownUID: Self.user,
                             fileOwner: { $0.hasPrefix("/usr/") ? 0 : Self.user },
                             resolve: { $0.replacingOccurrences(of: "/tmp/lu4321ab7.tmp/../../home", with: "/home") },
                             requested: requested.map { [$0] }, offices: { offices })
    }

    /// Debian's senddoc has exited and no scope says whose xdg-email was left behind: the
    /// document in the temporary directory of this user's running LibreOffice is trusted,
    /// and nothing else the URL asks for.
    @Test(arguments: [nil, userManager])
    func aDocumentInLibreOfficesTemporaryDirectoryIsLibreOffices(caller: ProcessFacts?) {
        let orphan = Self.xdgEmail([Self.url], parent: caller?.pid ?? 1)
        let trust = judgeOffices(orphan, caller, requested: [Self.document, "/home/ann/.ssh/id_rsa"])
        #expect(trust == AttachmentTrust(files: .only([Self.document]), requester: "LibreOffice"))
    }

    /// A web page in a browser cannot reach it: Chromium stays the parent of its xdg-email,
    /// even when LibreOffice runs and the page names a path in its temporary directory.
    @Test func aBrowsersXDGEmailGetsNoneOfLibreOfficesFiles() {
        let trust = judgeOffices(Self.xdgEmail([Self.url], parent: 200), Self.chromium, requested: [Self.document])
        #expect(trust == AttachmentTrust(files: .only([]), requester: "Chromium"))
    }

    /// Fail closed: no LibreOffice running, a file outside its temporary directory (also by
    /// `..`), a folder another process holds, a LibreOffice that is not the system's, or
    /// another user's.
    @Test func anythingElseLeftBehindIsNotTrusted() {
        let orphan = Self.xdgEmail([Self.url], parent: 1)
        #expect(judgeOffices(orphan, nil, requested: [Self.document], offices: []).files == .only([]))
        #expect(judgeOffices(orphan, nil, requested: ["/tmp/lu4321ab7.tmp/../../home/ann/.ssh/id_rsa"]).files == .only([]))
        #expect(judgeOffices(orphan, nil, requested: ["/tmp/lu99ab.tmp/x.odt"]).files == .only([]))
        var otherDirectory = Self.office
        otherDirectory.openFiles = ["/tmp/lu999ab7.tmp/lock"]
        #expect(judgeOffices(orphan, nil, requested: ["/tmp/lu999ab7.tmp/x.odt"], offices: [otherDirectory]).files == .only([]))
        var ownBuild = Self.office
        ownBuild.process.executable = "/home/ann/lo/program/soffice.bin"
        #expect(judgeOffices(orphan, nil, requested: [Self.document], offices: [ownBuild]).files == .only([]))
        var otherUsers = Self.office
        otherUsers.process.uid = 0
        #expect(judgeOffices(orphan, nil, requested: [Self.document], offices: [otherUsers]).files == .only([]))
    }
}
