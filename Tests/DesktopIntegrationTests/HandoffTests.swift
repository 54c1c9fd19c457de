import Foundation
import Testing
import TestSupport

/// `mailto-route open`: real launches through GIO, each in its own sandbox.
@Suite struct HandoffTests {
    @Test func openHandsTheCanonicalURLToTheDefaultHandler() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        let result = try route(["open", "mailto:a@example.org?Subject=Hi there&body=x%0Ay"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "handed off to Fake Bird (fakebird.desktop)\n")
        #expect(sandbox.recordedArgv("fakebird") == ["mailto:a@example.org?subject=Hi%20there&body=x%0D%0Ay"])
    }

    @Test func bareURLIsOpenedLikeOpen() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let result = try route(["MAILTO:b@example.org"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("fakebird") == ["mailto:b@example.org"])
    }

    @Test func launchedProgramCarriesTheLoopGuard() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let before = Int(Date().timeIntervalSince1970)
        _ = try route(["open", "mailto:a@example.org"], in: sandbox)
        let after = Int(Date().timeIntervalSince1970)
        _ = sandbox.recordedArgv("fakebird")
        // The moment of the handoff: between the two readings of the clock around it.
        let value = Int(sandbox.recordedGuard("fakebird") ?? "") ?? 0
        #expect(value >= before && value <= after, "\(value), handed off between \(before) and \(after)")
    }

    /// A click that opens no window passes its activation token on to the mail program it
    /// starts (inherited through GIO's launch), so that program's window takes the focus and
    /// the desktop's startup sequence ends there rather than in a busy cursor.
    @Test func handoffPassesTheClicksTokenToTheMailProgram() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("tokenbird.desktop", name: "Token Bird", program: "tokenbird", extraLines: ["StartupNotify=true"])
        let record = sandbox.recordsDirectory.appendingPathComponent("tokenbird.tokens").path
        // The recorder, replaced by one that writes the two variables it was started with.
        try sandbox.installScript("tokenbird", """
            printf '%s|%s' "$XDG_ACTIVATION_TOKEN" "$DESKTOP_STARTUP_ID" > '\(record).new' && mv '\(record).new' '\(record)'
            """)
        let entry = sandbox.systemApplications.appendingPathComponent("tokenbird.desktop")
        let text = try String(contentsOf: entry, encoding: .utf8)
        let exec = try #require(text.split(separator: "\n").first { $0.hasPrefix("Exec=") })
        try text.replacingOccurrences(of: String(exec), with: "Exec=\(sandbox.binDirectory.path)/tokenbird %u")
            .write(to: entry, atomically: false, encoding: .utf8)
        let result = try route(["open", "mailto:a@example.org"], in: sandbox,
                               ["XDG_ACTIVATION_TOKEN": "wayland-click-1", "DESKTOP_STARTUP_ID": "x11-click-1_TIME42"])
        #expect(result.status == 0, "\(result)")
        try waitUntil("tokenbird was started", timeout: patience) { FileManager.default.fileExists(atPath: record) }
        #expect(sandbox.contents(URL(fileURLWithPath: record)) == "wayland-click-1|x11-click-1_TIME42")
    }

    @Test func freshLoopGuardRefusesToHandOffAgain() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let now = String(Int(Date().timeIntervalSince1970))
        let result = try route(["open", "mailto:a@example.org"], in: sandbox, ["MAILTO_ROUTE_HANDOFF": now])
        // Not handed off, and not lost: saved as a draft, and the reason is said.
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("loop"))
        #expect(sandbox.drafts.count == 1)
        #expect(sandbox.neverLaunched("fakebird"))
    }

    @Test func staleLoopGuardIsIgnored() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox, ["MAILTO_ROUTE_HANDOFF": "1000"])
        #expect(result.status == 0, "\(result)")
    }

    @Test func noMailProgramSavesADraftAndSaysSo() throws {
        let sandbox = try Sandbox()
        let result = try route(["open", "mailto:a@example.org?subject=Hi"], in: sandbox)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("no mail program is set up"))
        let draft = try #require(sandbox.drafts.first)
        #expect(result.stdout == "saved as a draft: \(draft.path)\n")
        #expect(try sandbox.header("To", of: draft) == "a@example.org")
        #expect(try sandbox.header("Subject", of: draft) == "Hi")
    }

    @Test func malformedURLIsBadInput() throws {
        let sandbox = try Sandbox()
        let result = try route(["open", "mailto:a@example.org?subject=%G1"], in: sandbox)
        #expect(result.status == 65)
    }

    @Test func defaultThatIsItselfGivesWayToThePreviousDefault() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("aardvark.desktop", name: "Aardvark Mail", program: "aardvark")
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        #expect(try route(["register"], in: sandbox).status == 0)
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("(fakebird.desktop)"))
        #expect(sandbox.recordedArgv("fakebird") == ["mailto:a@example.org"])
    }

    @Test func defaultThatIsItselfWithNothingRememberedGivesWayToAnotherCandidate() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        // mailto-route made the default by hand, without `register` (no state file).
        try sandbox.write("""
            [Desktop Entry]
            Type=Application
            Name=mailto-route
            Exec=\(mailtoRouteBinary) open %u
            MimeType=x-scheme-handler/mailto;

            """, to: "home/.local/share/applications/mailto-route.desktop")
        try sandbox.setDefaultMailHandler("mailto-route.desktop")
        #expect(try judge("/usr/bin/gio", ["mime", "x-scheme-handler/mailto"], in: sandbox).stdout.contains(": mailto-route.desktop"))
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("fakebird") == ["mailto:a@example.org"])
    }

    @Test func itselfAsTheOnlyHandlerIsNoMailProgram() throws {
        let sandbox = try Sandbox()
        #expect(try route(["register"], in: sandbox).status == 0)
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("no mail program is set up"))
        #expect(sandbox.drafts.count == 1)
    }

    @Test func configuredHandlerComesBeforeTheDefault() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.installHandler("other.desktop", name: "Other Mail", program: "othermail")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        try sandbox.write("[route]\nhandler=other.desktop\n", to: "home/.config/mailto-route/config")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.stdout == "handed off to Other Mail (other.desktop)\n", "\(result)")
        #expect(sandbox.recordedArgv("othermail") == ["mailto:a@example.org"])
    }

    @Test func configuredHandlerThatIsMissingFallsBackWithAWarning() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.write("[route]\nhandler=gone.desktop\n", to: "home/.config/mailto-route/config")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("gone.desktop is not installed"))
        #expect(sandbox.recordedArgv("fakebird") == ["mailto:a@example.org"])
    }

    @Test func configuredItselfIsNeverLaunched() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        #expect(try route(["register"], in: sandbox).status == 0)
        try sandbox.write("[route]\nhandler=mailto-route.desktop\n", to: "home/.config/mailto-route/config")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("(fakebird.desktop)"))
    }

    @Test func worksWithoutXDGCurrentDesktop() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.environment()["XDG_CURRENT_DESKTOP"] == nil)
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.installHandler("other.desktop", name: "Other Mail", program: "othermail")
        try sandbox.setDefaultMailHandler("other.desktop")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.stdout.contains("(other.desktop)"), "\(result)")
    }

    @Test func desktopSpecificListDecidesAsItDoesForGIO() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.installHandler("other.desktop", name: "Other Mail", program: "othermail")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        try sandbox.write("[Default Applications]\nx-scheme-handler/mailto=other.desktop\n",
                          to: "home/.config/gnome-mimeapps.list")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox, ["XDG_CURRENT_DESKTOP": "GNOME"])
        #expect(result.stdout.contains("(other.desktop)"), "\(result)")
    }

    @Test func urlCannotInjectAttachmentsOrArguments() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let url = "mailto:a@example.org?attach=/etc/passwd&subject=x',attachment='file:///etc/passwd'&body=%22 --help"
        let result = try route(["open", url], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("warning: not attached: /etc/passwd (the link asked for it"), "\(result)")
        let argv = sandbox.recordedArgv("fakebird")
        #expect(argv == ["mailto:a@example.org?subject=x',attachment%3D'file:%2F%2F%2Fetc%2Fpasswd'&body=%22%20--help"])
    }

    @Test func webmailOpensTheComposePageInTheDefaultBrowser() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("browser.desktop", name: "Browser", program: "browser",
                                   mimeTypes: "x-scheme-handler/https;x-scheme-handler/http;")
        try sandbox.write("[route]\nhandler=webmail:gmail\n", to: "home/.config/mailto-route/config")
        let result = try route(["open", "mailto:a@example.org?subject=Hi&body=a%26b"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "handed off to Gmail in Browser (webmail:gmail)\n")
        #expect(sandbox.recordedArgv("browser") == [
            "https://mail.google.com/mail/?extsrc=mailto&url=mailto%3Aa%40example.org%3Fsubject%3DHi%26body%3Da%2526b",
        ])
        // A browser may open mailto: links for real later: it gets no loop guard.
        #expect(sandbox.recordedGuard("browser") == "")
    }

    @Test(arguments: [
        ("outlook", "https://outlook.live.com/mail/deeplink/compose?mailtouri=mailto%3Aa%40example.org"),
        ("fastmail", "https://app.fastmail.com/action/compose/?mailto=mailto%3Aa%40example.org"),
    ])
    func webmailServices(service: String, expected: String) throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("browser.desktop", name: "Browser", program: "browser",
                                   mimeTypes: "x-scheme-handler/https;")
        try sandbox.write("[route]\nhandler=webmail:\(service)\n", to: "home/.config/mailto-route/config")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("browser") == [expected])
    }

    @Test func unknownWebmailIsNamedAndTheMessageKept() throws {
        let sandbox = try Sandbox()
        try sandbox.write("[route]\nhandler=webmail:nope\n", to: "home/.config/mailto-route/config")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("unknown webmail service 'nope'"))
        #expect(sandbox.drafts.count == 1)
    }

    /// `check --json` lists every program that handles mailto: links (`handler.all`), the
    /// default first, each with its id, name, program and packaging.
    @Test func handlersAreListedWithIdNameExecutableAndPackaging() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.installHandler("org.mozilla.Thunderbird.desktop", name: "Thunderbird", program: "flatpak",
                                   exec: "run --command=thunderbird org.mozilla.Thunderbird %u",
                                   extraLines: ["X-Flatpak=org.mozilla.Thunderbird"], absoluteExec: false)
        try sandbox.installHandler("thunderbird_thunderbird.desktop", name: "Snap Bird", program: "snapbird",
                                   extraLines: ["X-SnapInstanceName=thunderbird"])
        try sandbox.setDefaultMailHandler("org.mozilla.Thunderbird.desktop")
        let result = try route(["check", "--offline", "--json"], in: sandbox)
        let all = try #require((try jsonObject(result.stdout)["handler"] as? [String: Any])?["all"] as? [[String: Any]], "\(result)")
        func line(_ program: [String: Any]) -> String {
            var flags: [String] = []
            if program["default"] as? Bool == true { flags.append("default") }
            if program["itself"] as? Bool == true { flags.append("itself") }
            if let appID = program["appId"] as? String { flags.append("flatpak:\(appID)") }
            if let snap = program["snap"] as? String { flags.append("snap:\(snap)") }
            return [program["id"], program["name"], program["executable"]].map { $0 as? String ?? "?" }.joined(separator: "|")
                + "|" + flags.joined(separator: ",")
        }
        let bin = sandbox.binDirectory.path
        #expect(all.first.map(line)?.hasPrefix("org.mozilla.Thunderbird.desktop|") == true, "\(result)")
        #expect(Set(all.map(line)) == [
            "org.mozilla.Thunderbird.desktop|Thunderbird|flatpak|default,flatpak:org.mozilla.Thunderbird",
            "fakebird.desktop|Fake Bird|\(bin)/fakebird|",
            "thunderbird_thunderbird.desktop|Snap Bird|\(bin)/snapbird|snap:thunderbird",
        ])
    }
}

/// A D-Bus-activatable mail program (`DBusActivatable=true`, as Evolution and Geary are):
/// GIO hands it the link over the session bus (`org.freedesktop.Application.Open`), so no
/// process of mailto-route's is there to watch; the handoff waits for the bus's answer
/// (within `Launcher.launchTimeout`), so that a program the bus cannot start, or one that
/// refuses the call, is a failed handoff and the message a draft. Each test has a private
/// session bus that activates the program from a service file of its own
/// (`Servers/dbus-mail-program.py`, recording each call).
@Suite struct DBusActivatableHandoffTests {
    static let name = "org.example.Mail"

    /// The entry (its `Exec=`, the recorder `examplemail`, is what GIO would run without
    /// a bus), the bus's service file running `exec` (by default the recording program,
    /// answering as `answer` says), and where the program records its calls.
    static func sandbox(answer: String = "reply", exec: String? = nil) throws -> (Sandbox, PrivateSessionBus, URL) {
        let sandbox = try Sandbox()
        try sandbox.installHandler("\(name).desktop", name: "Example Mail", program: "examplemail",
                                   extraLines: ["DBusActivatable=true"])
        try sandbox.setDefaultMailHandler("\(name).desktop")
        let record = sandbox.recordsDirectory.appendingPathComponent("bus-calls.jsonl")
        let program = packageRoot.appendingPathComponent("Tests/TestSupport/Servers/dbus-mail-program.py").path
        let command = exec ?? "/usr/bin/python3 \(program) \(name) --record \(record.path) --answer \(answer)"
        try sandbox.write("[D-BUS Service]\nName=\(name)\nExec=\(command)\n", to: "bus-services/\(name).service")
        let bus = try PrivateSessionBus(serviceDirectory: sandbox.root.appendingPathComponent("bus-services"))
        return (sandbox, bus, record)
    }

    /// The calls the program got, as recorded.
    static func calls(_ record: URL) -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: record.path) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    @Test func programThatTakesTheLinkOverTheBusHasIt() throws {
        let (sandbox, bus, record) = try Self.sandbox()
        let result = try route(["open", "mailto:a@example.org?subject=Hi"], in: sandbox, ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "handed off to Example Mail (\(Self.name).desktop)\n", "\(result)")
        // Answered before mailto-route reported, so on record by now.
        let calls = Self.calls(record)
        #expect(calls.count == 1 && calls.first?["method"] as? String == "Open", "\(calls)")
        #expect(calls.first?["uris"] as? [String] == ["mailto:a@example.org?subject=Hi"], "\(calls)")
        #expect(sandbox.neverLaunched("examplemail"), "GIO ran Exec= instead of activating the program over the bus")
        #expect(sandbox.drafts.isEmpty)
    }

    /// The bus cannot start the program (its service exits at once): the bus says so to
    /// the `Open` call, and the handoff failed.
    @Test func programTheBusCannotStartIsAFailedHandoffAndTheMessageADraft() throws {
        let (sandbox, bus, _) = try Self.sandbox(exec: "/bin/false")
        let result = try route(["open", "mailto:a@example.org?subject=Hi"], in: sandbox, ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("not handed off: cannot start Example Mail (\(Self.name).desktop)"), "\(result)")
        #expect(!result.stderr.contains("CRITICAL"), "GLib's assertion about the launch context: \(result)")
        #expect(sandbox.drafts.count == 1)
        let forced = try route(["send", "mailto:a@example.org", "--handoff", "--json"], in: sandbox,
                               ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(forced.status == 1, "\(forced)")
        let report = try jsonObject(forced.stdout)
        #expect(report["result"] as? String == "failed", "\(report)")
        #expect(report["draft"] is String, "\(report)")
    }

    /// The program runs and answers the `Open` call with an error: its words are the report's.
    @Test func programThatRefusesTheLinkIsAFailedHandoff() throws {
        let (sandbox, bus, record) = try Self.sandbox(answer: "error")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox, ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("the mail program cannot open a window"), "\(result)")
        #expect(Self.calls(record).count == 1)
        #expect(sandbox.drafts.count == 1)
    }
}
