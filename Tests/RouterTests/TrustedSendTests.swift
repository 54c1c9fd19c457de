import Foundation
import Testing
import TestSupport

/// `mailto-route send`: a script or app asked, so no consent is needed; a forced path that
/// cannot be taken is an error, never a silent switch; nothing is ever lost.
@Suite struct TrustedSendTests {
    @Test func sendWithAWorkingAccountGoesDirectWithoutAsking() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let result = try route(["send", "--to", "joe@example.com", "--subject", "S", "--body", "b", "--json"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["path"] as? String == "direct")
        #expect(report["result"] as? String == "sent")
        #expect(server.messages.count == 1)
        #expect(sandbox.neverLaunched("fakebird"))
        // The outcome log names the command, as `log` shows it.
        let log = try String(contentsOf: sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log"), encoding: .utf8)
        let line = try jsonObject(try #require(log.split(separator: "\n").first.map(String.init)))
        #expect(line["source"] as? String == "send")
        #expect(line["path"] as? String == "direct")
    }

    @Test func forcedHandoffIsHonouredEvenWithAnAccount() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let result = try route(["send", "--handoff", "--to", "joe@example.com", "--subject", "S", "--json"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["result"] as? String == "handedOff")
        #expect((report["handler"] as? [String: String])?["id"] == "fakebird.desktop")
        #expect(sandbox.recordedArgv("fakebird") == ["mailto:joe@example.com?subject=S"])
        #expect(server.messages.isEmpty)
    }

    @Test func forcedDirectWithoutAnAccountIsAConfigurationErrorAndTheMessageIsKept() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let result = try route(["send", "--direct", "--to", "joe@example.com", "--subject", "S", "--json"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["result"] as? String == "failed")
        #expect((report["error"] as? [String: String])?["kind"] == "configuration")
        let draft = try #require(sandbox.drafts.first)
        #expect(report["draft"] as? String == draft.path)
        #expect(try sandbox.header("To", of: draft) == "joe@example.com")
        // Not handed off behind the caller's back.
        #expect(sandbox.neverLaunched("fakebird"))
    }

    @Test func forcedHandoffWithoutAMailProgramFailsAndKeepsTheMessage() throws {
        let sandbox = try Sandbox()
        let result = try route(["send", "--handoff", "--to", "joe@example.com", "--json"], in: sandbox)
        #expect(result.status == 1, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["result"] as? String == "failed")
        #expect(report["draft"] as? String == sandbox.drafts.first?.path)
    }

    @Test func directAndHandoffTogetherIsAUsageError() throws {
        let sandbox = try Sandbox()
        let result = try route(["send", "--direct", "--handoff", "--to", "joe@example.com"], in: sandbox)
        #expect(result.status == 64, "\(result)")
        #expect(sandbox.drafts.isEmpty)
    }

    @Test func noAccountHandsOffToTheMailProgram() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let result = try route(["send", "--to", "joe@example.com", "--json"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "handedOff")
    }

    /// Rule 2: an attachment the mail program cannot take is named, and the whole message
    /// is kept as a draft, attachment included (checked by Python's email parser).
    @Test func attachmentTheMailProgramCannotTakeIsNamedAndKeptInADraft() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let file = try sandbox.write("attached bytes\n", to: "report.txt")
        let result = try route(["send", "--to", "joe@example.com", "--attach", file.path, "--json"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let report = try jsonObject(result.stdout)
        let warnings = try #require(report["warnings"] as? [String])
        #expect(warnings.contains { $0.contains("report.txt") })
        let draft = try #require(sandbox.drafts.first)
        #expect(report["draft"] as? String == draft.path)
        let check = try run("/usr/bin/python3", ["-c", """
            import sys
            from email import policy
            from email.parser import BytesParser
            message = BytesParser(policy=policy.default).parse(open(sys.argv[1], 'rb'))
            parts = [p for p in message.iter_attachments()]
            print(parts[0].get_filename(), parts[0].get_content().decode() if isinstance(parts[0].get_content(), bytes) else parts[0].get_content(), end='')
            """, draft.path])
        #expect(check.stdout == "report.txt attached bytes\n", "\(check)")
    }

    /// Every run leaves one line in the outcome log, and never the subject or body.
    @Test func everyRunIsLoggedWithoutItsContent() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        _ = try route(["send", "--to", "joe@example.com", "--subject", "SECRET-SUBJECT", "--body", "SECRET-BODY"], in: sandbox)
        _ = try route(["open", "mailto:?subject=SECRET-SUBJECT"], in: sandbox)
        let log = try String(contentsOf: sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log"), encoding: .utf8)
        let lines = log.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(!log.contains("SECRET"))
        let stats = try route(["log", "--stats", "--json"], in: sandbox)
        #expect(stats.stdout.contains("handedOff"), "\(stats)")
    }
}

/// Rule 3 when the outbox itself fails: the message is kept as a draft instead, and the
/// report says both.
@Suite struct OutboxFailureTests {
    @Test func transientFailureWithAnUnwritableOutboxKeepsADraft() throws {
        let sandbox = try Sandbox()
        let (port, descriptor) = try unlistenedPort()
        defer { close(descriptor) }
        try writeAccount(sandbox, port: port, security: "none")
        // A file where the outbox directory should be: every write to it fails (ENOTDIR),
        // as on a read-only or broken file system, also for root.
        try sandbox.write("not a directory", to: "home/.local/state/mailto-route/outbox")
        let result = try route(["send", "--to", "joe@example.com", "--subject", "kept", "--json"], in: sandbox)
        #expect(result.status == 1, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["result"] as? String == "failed")
        #expect((report["error"] as? [String: String])?["kind"] == "transient")
        let warnings = try #require(report["warnings"] as? [String])
        #expect(warnings.contains { $0.contains("could not put the message in the outbox") })
        let draft = try #require(sandbox.drafts.first)
        #expect(report["draft"] as? String == draft.path)
        #expect(try sandbox.header("Subject", of: draft) == "kept")
    }
}

/// Every run also sends what is due in the outbox, after its own message.
@Suite struct QuickFlushTests {
    /// A message queued by a 4xx reply, made due now as if its back-off had passed; the
    /// account then points at `server`. Returns the queued Message-ID.
    func queueDueMessage(in sandbox: Sandbox, thenUse server: SMTPTestServer) throws -> String {
        let busy = try SMTPTestServer(.plain, dataReply: "451 4.3.0 Try again later")
        try writeAccount(sandbox, port: busy.port, security: "none")
        let first = try route(["send", "--to", "joe@example.com", "--subject", "first", "--json"], in: sandbox)
        #expect(first.status == 75, "\(first)")
        let queuedId = try #require(try jsonObject(first.stdout)["messageId"] as? String)
        let outbox = sandbox.stateHome.appendingPathComponent("mailto-route/outbox")
        let entry = try #require(try FileManager.default.contentsOfDirectory(atPath: outbox.path).first { $0.hasPrefix("2") })
        let meta = outbox.appendingPathComponent(entry).appendingPathComponent("meta.json")
        var object = try jsonObject(String(contentsOf: meta, encoding: .utf8))
        object["nextAttempt"] = "2000-01-01T00:00:00Z"
        try JSONSerialization.data(withJSONObject: object).write(to: meta)
        try writeAccount(sandbox, port: server.port, security: "none")
        return queuedId
    }

    @Test func aLaterRunSendsWhatIsDueAfterItsOwnMessage() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        let queuedId = try queueDueMessage(in: sandbox, thenUse: server)
        let second = try route(["send", "--to", "ann@example.com", "--subject", "second"], in: sandbox)
        #expect(second.status == 0, "\(second)")
        #expect(server.messages.count == 2)
        let ids = try server.messages.compactMap { try sandbox.header("Message-ID", of: $0) }
        #expect(ids.contains(queuedId))
        #expect(try route(["outbox", "list"], in: sandbox).stdout.contains("empty"))
        let log = try route(["log", "--json"], in: sandbox).stdout
        #expect(log.contains("\"source\": \"outbox\""), "\(log)")
    }

    /// A queued message the server now refuses for good is moved to failed/, and the user
    /// is told with a notification, since nobody else would tell them.
    @Test func aMessageGivenUpOnIsToldAsANotification() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, refuse: ["joe@example.com"])
        _ = try queueDueMessage(in: sandbox, thenUse: server)
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus)
        let second = try route(["send", "--to", "ann@example.com", "--subject", "second"], in: sandbox,
                               ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(second.status == 0, "\(second)")
        let told = try #require(notifications.notifications.first { $0.summary.contains("could not be sent") })
        #expect(told.body.contains("first to joe@example.com"))
        #expect(told.urgency == 2)
        #expect(try route(["outbox", "list"], in: sandbox).stdout.contains("joe@example.com"))
    }
}

/// Rule 3 for a recipient a server puts off (4xx) while it takes the message for others:
/// the message is queued for that recipient alone, and the others never get it twice.
@Suite struct DeferredRecipientTests {
    @Test func aDeferredRecipientIsQueuedAloneAndGetsItLater() throws {
        let sandbox = try Sandbox()
        let first = try SMTPTestServer(.plain, deferred: ["later@example.org"])
        try writeAccount(sandbox, port: first.port, security: "none")
        let result = try route(["send", "--to", "now@example.org", "--to", "later@example.org", "--subject", "t", "--json"],
                               in: sandbox)
        #expect(result.status == 0, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["result"] as? String == "sent")
        #expect(report["outboxId"] is String)
        #expect(first.messages.count == 1)
        let messageId = try #require(report["messageId"] as? String)

        // The same server takes the deferred recipient on a later flush.
        let second = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: second.port, security: "none")
        let outbox = try route(["outbox", "list", "--json"], in: sandbox)
        #expect(outbox.stdout.contains("later@example.org"))
        #expect(!outbox.stdout.contains("now@example.org"), "\(outbox.stdout)")
        let id = try #require(report["outboxId"] as? String)
        let retry = try route(["outbox", "retry", id], in: sandbox)
        #expect(retry.status == 0, "\(retry)")
        let delivered = try #require(second.messages.first)
        #expect(try second.envelope(of: delivered)["rcpt_tos"] as? [String] == ["later@example.org"])
        #expect(try sandbox.header("Message-ID", of: delivered) == messageId)
        #expect(second.messages.count == 1)
    }
}
