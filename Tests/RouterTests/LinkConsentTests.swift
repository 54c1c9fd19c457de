import Foundation
import Testing
import TestSupport

/// docs/design.md rule 1: a clicked link is never sent without the user's consent. Each test
/// runs `mailto-route open` in a sandbox with a real SMTP server that counts what it
/// receives, a recording mail program, and (where it says so) a notification server on a
/// private bus.
@Suite struct LinkConsentTests {
    static let url = "mailto:joe@example.com?subject=Hello&body=Hi%20Joe"

    /// An account on a loopback server, a mail program, and `policy=` when given.
    func setUp(policy: String? = nil, mailProgram: Bool = true) throws -> (Sandbox, SMTPTestServer) {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        if let policy {
            try (String(contentsOf: config, encoding: .utf8) + "[route]\npolicy=\(policy)\n")
                .write(to: config, atomically: false, encoding: .utf8)
        }
        if mailProgram { try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird") }
        return (sandbox, server)
    }

    /// Runs `mailto-route open URL` in a session of its own, so that it has no controlling
    /// terminal to ask on, as when a link is clicked.
    /// In `locale` when given: the whole environment in it (`inLocale`).
    func click(_ sandbox: Sandbox, bus: PrivateSessionBus? = nil, json: Bool = true, locale: String? = nil) throws -> RunResult {
        var extra: [String: String] = [:]
        if let bus { extra["DBUS_SESSION_BUS_ADDRESS"] = bus.address }
        let environment = sandbox.environment(extra)
        return try run("/usr/bin/setsid", ["-w", mailtoRouteBinary, "open", Self.url] + (json ? ["--json"] : []),
                       environment: locale.map { inLocale($0, environment) } ?? environment, timeout: 60)
    }

    @Test func withNoWayToAskTheLinkIsHandedOffAndNeverSent() throws {
        let (sandbox, server) = try setUp()
        let result = try click(sandbox)
        #expect(result.status == 0, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["result"] as? String == "handedOff")
        let warnings = try #require(report["warnings"] as? [String])
        #expect(warnings.contains { $0.contains("needs your consent, which could not be asked") })
        #expect(sandbox.recordedArgv("fakebird") == [Self.url])
        #expect(server.messages.isEmpty)
    }

    /// A link's In-Reply-To that is no message identifier does not stop a consented
    /// send: the message goes without it, and the report says so.
    @Test func aLinksUnsendableInReplyToIsLeftOutAndSaid() throws {
        let (sandbox, server) = try setUp(policy: "direct")
        let result = try run("/usr/bin/setsid", ["-w", mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Hi&in-reply-to=%C3%A9t%C3%A9", "--json"],
                             environment: sandbox.environment([:]), timeout: 60)
        #expect(result.status == 0, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["result"] as? String == "sent")
        let warnings = try #require(report["warnings"] as? [String])
        #expect(warnings.contains { $0.hasPrefix("header fields in-reply-to not sent: ") }, "\(warnings)")
        let message = try #require(server.messages.first)
        #expect(try sandbox.header("Subject", of: message) == "Hi")
        #expect(try sandbox.header("In-Reply-To", of: message) == nil)
    }

    /// `mailto-route URL --json`, as `[open] URL [--json]` in --help says.
    @Test func bareURLTakesJSONToo() throws {
        let (sandbox, server) = try setUp()
        let result = try run("/usr/bin/setsid", ["-w", mailtoRouteBinary, Self.url, "--json"],
                             environment: sandbox.environment([:]), timeout: 60)
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "handedOff")
        #expect(server.messages.isEmpty)
    }

    @Test func withNoWayToAskAndNoMailProgramTheLinkIsSavedAndNeverSent() throws {
        let (sandbox, server) = try setUp(mailProgram: false)
        let result = try click(sandbox)
        #expect(result.status == 3, "\(result)")
        let draft = try #require(sandbox.drafts.first)
        #expect(try sandbox.header("Subject", of: draft) == "Hello")
        #expect(try sandbox.header("From", of: draft) == "Jane Doe <jane@example.org>")
        #expect(server.messages.isEmpty)
    }

    /// The notification's Send sends the link's message, once. Asked and sent where the
    /// user's locale is German, Turkish or Persian: the question is theirs, the message on
    /// the wire is the same as in English (rule 10), as Python's `email` reads it.
    @Test(arguments: wireLocales)
    func sendButtonSendsItOnce(_ locale: String) throws {
        try requireLocale(locale)
        let (sandbox, server) = try setUp()
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus, answers: ["action:send"])
        let result = try click(sandbox, bus: bus, locale: locale)
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "sent")
        #expect(server.messages.count == 1)
        let view = try pythonView(of: try #require(server.messages.first))
        #expect(wireProblems(in: view) == [], "\(locale)")
        #expect(view["date"] is String, "\(locale)")
        let question = try #require(notifications.notifications.first)
        #expect(question.actions.contains("send"))
        #expect(question.body.contains("joe@example.com"))
        #expect(sandbox.neverLaunched("fakebird"))
    }

    @Test func cancelButtonSendsNothingAndExitsFour() throws {
        let (sandbox, server) = try setUp()
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus, answers: ["action:cancel"])
        let result = try click(sandbox, bus: bus)
        #expect(notifications.notifications.first?.actions.contains("cancel") == true)
        #expect(result.status == 4, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "cancelled")
        #expect(server.messages.isEmpty)
        #expect(sandbox.neverLaunched("fakebird"))
    }

    @Test func openInMailProgramButtonHandsItOff() throws {
        let (sandbox, server) = try setUp()
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus, answers: ["action:handoff"])
        let result = try click(sandbox, bus: bus)
        #expect(notifications.notifications.first?.actions.contains("handoff") == true)
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "handedOff")
        #expect(sandbox.recordedArgv("fakebird") == [Self.url])
        #expect(server.messages.isEmpty)
    }

    @Test(arguments: [["close:2"], ["close:1"], []])
    func closedOrUnansweredQuestionIsNeverSent(answers: [String]) throws {
        // A short wait for the unanswered case (the default is two minutes).
        let (sandbox, server) = try setUp(policy: "ask\nconsent-timeout=2")
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus, answers: answers)
        let result = try click(sandbox, bus: bus)
        #expect(notifications.notifications.first?.actions.contains("send") == true)
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "handedOff")
        #expect(server.messages.isEmpty)
    }

    @Test func notificationServerWithoutButtonsIsNeverAskedAndNeverSends() throws {
        let (sandbox, server) = try setUp()
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus, capabilities: ["body"], answers: ["action:send"])
        let result = try click(sandbox, bus: bus)
        #expect(result.status == 0, "\(result)")
        #expect(server.messages.isEmpty)
        // The only notification is the report of what happened, without buttons.
        #expect(notifications.notifications.allSatisfy { $0.actions.isEmpty })
    }

    @Test func policyDirectIsStandingConsent() throws {
        let (sandbox, server) = try setUp(policy: "direct")
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus, answers: ["action:cancel"])
        let result = try click(sandbox, bus: bus)
        #expect(result.status == 0, "\(result)")
        #expect(server.messages.count == 1)
        #expect(notifications.notifications.allSatisfy { $0.actions.isEmpty })
    }

    @Test func policyHandoffNeverSendsALink() throws {
        let (sandbox, server) = try setUp(policy: "handoff")
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus, answers: ["action:send"])
        let result = try click(sandbox, bus: bus)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("fakebird") == [Self.url])
        #expect(server.messages.isEmpty)
        #expect(notifications.notifications.allSatisfy { $0.actions.isEmpty })
    }

    /// Under policy=handoff a link is never sent, so its password is never asked for: a
    /// password command may pop up a keyring prompt for nothing.
    @Test func policyHandoffDoesNotRunThePasswordCommand() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        // A message due in the outbox too: the quick flush after a click would need the
        // password, so under policy=handoff a click leaves it for later.
        _ = try QuickFlushTests().queueDueMessage(in: sandbox, thenUse: server)
        let marker = sandbox.root.appendingPathComponent("password-asked")
        let config = try writeAccount(sandbox, port: server.port, security: "none", user: "jane",
                                      passwordCommand: "/bin/sh -c 'touch \(marker.path); echo secret'")
        try (String(contentsOf: config, encoding: .utf8) + "[route]\npolicy=handoff\n")
            .write(to: config, atomically: false, encoding: .utf8)
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let result = try click(sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: marker.path))
        #expect(server.messages.isEmpty)
        // The same account does run it for a script's send, which needs it.
        _ = try route(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(FileManager.default.fileExists(atPath: marker.path))
    }

    @Test func unknownPolicyNeverSendsALink() throws {
        let (sandbox, server) = try setUp(policy: "always")
        let result = try click(sandbox)
        #expect(result.status == 0, "\(result)")
        #expect((try jsonObject(result.stdout)["warnings"] as? [String])?.contains { $0.contains("policy=always") } == true)
        #expect(server.messages.isEmpty)
    }

    /// A misspelt key in [route] is a mistake, named with the key it was meant to be, and
    /// links go to the mail program until it is mended: `polcy=direct` never sends a link.
    @Test func misspeltRouteKeyIsNamedAndLinksAreHandedOff() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        let server = try SMTPTestServer(.plain)
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        try (String(contentsOf: config, encoding: .utf8) + "[route]\npolcy=direct\n").write(to: config, atomically: false, encoding: .utf8)
        #expect(try route(["register"], in: sandbox).status == 0)
        let checked = try route(["check", "--offline", "--json"], in: sandbox)
        #expect(checked.status == 78, "\(checked)")
        let problems = (try jsonObject(checked.stdout)["problems"] as? [[String: Any]]) ?? []
        #expect(problems.contains { ($0["problem"] as? String)?.hasSuffix("unknown key 'polcy' in [route]; did you mean 'policy'?") == true },
                "\(checked)")
        let click = try route(["open", "mailto:joe@example.com?subject=Typo", "--json"], in: sandbox)
        #expect(click.status == 0, "\(click)")
        #expect(try jsonObject(click.stdout)["path"] as? String == "handoff", "\(click)")
        #expect(server.messages.isEmpty)
    }

    /// A mistake in [route] makes links hand off, and keeps the `handler=` the group names:
    /// the check and the click go to the same program (not to the desktop's default).
    @Test(arguments: ["policy=always", "consent-timeout=forever"])
    func routeMistakeKeepsTheConfiguredHandlerForTheClickAndTheCheck(_ mistake: String) throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.installHandler("other.desktop", name: "Other Mail", program: "othermail")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        let server = try SMTPTestServer(.plain)
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        try (String(contentsOf: config, encoding: .utf8) + "[route]\nhandler=other.desktop\n\(mistake)\n")
            .write(to: config, atomically: false, encoding: .utf8)
        #expect(try route(["register"], in: sandbox).status == 0)

        let checked = try route(["check", "--offline", "--json"], in: sandbox)
        #expect(checked.status == 78, "\(checked)")
        let check = try jsonObject(checked.stdout)
        #expect((check["verdict"] as? [String: Any])?["sentence"] as? String == "would open Other Mail (until the mistake in [route] is fixed)",
                "\(checked)")
        let fix = mistake.hasPrefix("policy=") ? "set policy= to ask, direct or handoff" : "set consent-timeout= to a number of seconds from 1 to 3600"
        #expect((check["problems"] as? [[String: Any]])?.contains {
            ($0["problem"] as? String)?.contains(mistake) == true && ($0["fix"] as? String)?.hasPrefix(fix) == true
        } == true, "\(checked)")
        let checkSays = (check["handoff"] as? [String: Any])?["id"] as? String
        #expect(checkSays == "other.desktop")

        let clicked = try click(sandbox)
        #expect(clicked.status == 0, "\(clicked)")
        let report = try jsonObject(clicked.stdout)
        #expect((report["handler"] as? [String: Any])?["id"] as? String == checkSays, "\(clicked)")
        #expect((report["warnings"] as? [String])?.contains { $0.contains(mistake) && $0.hasSuffix("links are handed off until it is fixed") } == true)
        #expect(sandbox.recordedArgv("othermail") == [Self.url])
        #expect(sandbox.neverLaunched("fakebird"))
        #expect(server.messages.isEmpty)
    }

    /// Plain text off loopback is a mistake of the account, found when it is read: a click
    /// hands off without asking to send what would be refused, `send` stops before its
    /// password command, and the check says so. `*.localhost` may resolve elsewhere, so it
    /// is not loopback here either.
    @Test(arguments: ["smtp.example.invalid", "mail.localhost"])
    func plainTextOffLoopbackIsAnAccountMistakeBeforeAnyQuestion(_ host: String) throws {
        let sandbox = try Sandbox()
        let marker = sandbox.root.appendingPathComponent("password-asked")
        try writeAccount(sandbox, port: 25, security: "none", user: "jane",
                         passwordCommand: "/bin/sh -c 'touch \(marker.path); echo secret'", host: host)
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus, answers: ["action:send"])

        let clicked = try click(sandbox, bus: bus)
        #expect(clicked.status == 0, "\(clicked)")
        let report = try jsonObject(clicked.stdout)
        #expect(report["result"] as? String == "handedOff")
        #expect((report["warnings"] as? [String])?.contains { $0.hasPrefix("account not usable:") && $0.contains("plain text to \(host)") } == true,
                "\(clicked)")
        #expect(sandbox.recordedArgv("fakebird") == [Self.url])
        #expect(notifications.notifications.allSatisfy { $0.actions.isEmpty })

        let checked = try route(["check", "--offline", "--json"], in: sandbox, ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(checked.status == 78, "\(checked)")
        let problems = try jsonObject(checked.stdout)["problems"] as? [[String: Any]] ?? []
        #expect(problems.contains { ($0["problem"] as? String)?.contains("plain text to \(host)") == true }, "\(checked)")

        let sent = try route(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(sent.status == 78, "\(sent)")
        #expect(sent.stderr.contains("plain text to \(host)"), "\(sent)")
        #expect(!FileManager.default.fileExists(atPath: marker.path))
    }

    @Test func terminalAnswerSendSendsIt() throws {
        let (sandbox, server) = try setUp()
        let result = try runOnTerminal([mailtoRouteBinary, "open", Self.url], answers: ["s"],
                                       environment: sandbox.environment())
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("joe@example.com"))
        #expect(result.stdout.contains("sent via 127.0.0.1:\(server.port)"))
        #expect(server.messages.count == 1)
    }

    @Test func terminalAnswerCancelSendsNothing() throws {
        let (sandbox, server) = try setUp()
        let result = try runOnTerminal([mailtoRouteBinary, "open", Self.url], answers: ["c"],
                                       environment: sandbox.environment())
        #expect(result.status == 4, "\(result)")
        #expect(result.stdout.contains("cancelled"))
        #expect(server.messages.isEmpty)
    }

    /// A clicked link with nobody at a terminal is told what happened.
    @Test func reportIsShownAsANotificationWhenThereIsNoTerminal() throws {
        let (sandbox, _) = try setUp(policy: "handoff")
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus)
        let result = try click(sandbox, bus: bus, json: false)
        #expect(result.status == 0, "\(result)")
        let shown = try #require(notifications.notifications.last)
        // A person's words; the desktop id is for the command line's line and the log.
        #expect(shown.summary == "Opened in Fake Bird", "\(shown)")
        #expect(!shown.body.contains("fakebird.desktop"), "\(shown)")
    }

    /// A link that cannot be read is not routed (exit 65), but the user who clicked it
    /// is told, and the outcome log has the run.
    @Test func unreadableLinkIsShownAsANotificationAndLogged() throws {
        let (sandbox, server) = try setUp()
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus)
        let result = try run("/usr/bin/setsid", ["-w", mailtoRouteBinary, "open", "mailto:joe@example.com?subject=50%"],
                             environment: sandbox.environment(["DBUS_SESSION_BUS_ADDRESS": bus.address]), timeout: 60)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("invalid percent-escape '%'"))
        let shown = try #require(notifications.notifications.last)
        #expect(shown.summary.contains("cannot open this link"))
        #expect(shown.body.contains("offset 33"))
        let log = try String(contentsOf: sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log"), encoding: .utf8)
        let line = try jsonObject(try #require(log.split(separator: "\n").last.map(String.init)))
        #expect(line["source"] as? String == "link")
        #expect(line["path"] as? String == "none")
        #expect(line["result"] as? String == "failed")
        #expect(line["errorKind"] as? String == "input")
        #expect(server.messages.isEmpty)
        #expect(sandbox.neverLaunched("fakebird"))
    }
}
