import Foundation
import MailtoCore
import Outbox
import Testing
import TestSupport

/// The outbox where the binary running in `sandbox` looks for it.
func outbox(in sandbox: Sandbox) -> Outbox {
    Outbox(directory: sandbox.stateHome.appendingPathComponent("mailto-route/outbox").path)
}

func message(_ subject: String, to: String = "joe@example.org") -> OutboxMessage {
    let text = "From: jane@example.org\r\nTo: \(to)\r\nSubject: \(subject)\r\nMessage-ID: <m@example.org>\r\n\r\nHi\r\n"
    return OutboxMessage(bytes: Array(text.utf8), envelopeFrom: "jane@example.org", recipients: [to], server: "smtp.example.org:587")
}

@Suite struct OutboxCommandTests {
    @Test func anEmptyOutboxSaysSo() throws {
        let sandbox = try Sandbox()
        let result = try mailtoRoute(["outbox", "list"], in: sandbox)
        #expect(result.status == 0)
        #expect(result.stdout == "The outbox is empty.\n")
        let json = try mailtoRoute(["outbox", "list", "--json"], in: sandbox)
        #expect(json.stdout == "{\"queued\": [], \"failed\": []}\n")
    }

    /// Held messages (Undo send, Send Later) are listed apart with the time they are sent
    /// at, shown as held, and no flush sends them early.
    @Test func heldMessagesAreListedWithTheirTimeAndNotFlushed() throws {
        let sandbox = try Sandbox()
        _ = try writeAccount(sandbox, port: 2525, security: "none")
        let box = outbox(in: sandbox)
        let until = Timestamp.now() + 7_200
        let held = try box.enqueue(message("Minutes"), held: (.later, until))
        let list = try mailtoRoute(["outbox", "list"], in: sandbox)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Held until their time (1); 'outbox retry ID' sends one now, 'outbox drop ID' deletes it:", "\(list)")
        #expect(lines.count == 3 && lines[1].hasPrefix("ID ") && lines[1].contains("SEND AT"), "\(list)")
        #expect(lines.last?.hasPrefix(held.id) == true && lines.last?.contains("send later") == true, "\(list)")
        let json = try jsonObject(try mailtoRoute(["outbox", "list", "--json"], in: sandbox).stdout)
        let entry = try #require((json["queued"] as? [[String: Any]])?.first)
        #expect(entry["hold"] as? String == "later")
        #expect(entry["nextAttempt"] as? String == until.iso8601)
        let flush = try mailtoRoute(["outbox", "flush"], in: sandbox)
        #expect(flush.status == 0, "\(flush)")
        #expect(flush.stdout == "Nothing to send now: what is in the outbox is held until its time (mailto-route outbox list).\n")
        let show = try mailtoRoute(["outbox", "show", held.id], in: sandbox)
        #expect(show.stdout.contains("Held:") && show.stdout.contains("(send later)"), "\(show)")
        #expect(try box.list().map(\.id) == [held.id])
    }

    @Test func listShowsQueuedAndFailedMessages() throws {
        let sandbox = try Sandbox()
        let box = outbox(in: sandbox)
        let queued = try box.enqueue(message("Lunch?"), failedAttempt: Failure(kind: .transient, message: "connection refused"))
        let failed = try box.enqueue(message("Report", to: "nobody@example.org")).id
        try box.markAttempt(failed, error: Failure(kind: .permanent, message: "550 5.1.1 no such user"))

        let result = try mailtoRoute(["outbox", "list"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Queued (1):")
        #expect(lines[1].hasPrefix("ID "))
        #expect(lines[2].hasPrefix(queued.id))
        #expect(lines[2].contains("Lunch?") && lines[2].contains("transient: connection refused"))
        #expect(lines[4].hasPrefix("Failed, not retried any more (1)"))
        #expect(lines[6].hasPrefix(failed) && lines[6].contains("nobody@example.org"))

        let json = try jsonObject(try mailtoRoute(["outbox", "list", "--json"], in: sandbox).stdout)
        let queuedJSON = try #require(json["queued"] as? [[String: Any]])
        let failedJSON = try #require(json["failed"] as? [[String: Any]])
        #expect(queuedJSON.map { $0["id"] as? String } == [queued.id])
        #expect(queuedJSON.first?["attempts"] as? Int == 1)
        #expect(failedJSON.first?["state"] as? String == "failed")
        #expect((failedJSON.first?["lastError"] as? [String: Any])?["kind"] as? String == "permanent")
    }

    @Test func showPrintsOneEntryAndUnknownIdsExit65() throws {
        let sandbox = try Sandbox()
        let entry = try outbox(in: sandbox).enqueue(message("Hello \u{202E}gnp.exe"))
        let result = try mailtoRoute(["outbox", "show", entry.id], in: sandbox)
        #expect(result.status == 0)
        #expect(result.stdout.contains("State:         queued\n"))
        #expect(result.stdout.contains("Message-ID:    <m@example.org>\n"))
        // A subject is text from outside: a bidirectional override is shown, not obeyed.
        #expect(result.stdout.contains("Subject:       Hello \\u{202E}gnp.exe\n"))
        let json = try jsonObject(try mailtoRoute(["outbox", "show", entry.id, "--json"], in: sandbox).stdout)
        #expect(json["id"] as? String == entry.id)
        #expect(json["server"] as? String == "smtp.example.org:587")

        let unknown = try mailtoRoute(["outbox", "show", "20260101-000000-000000-00000000"], in: sandbox)
        #expect(unknown.status == 65)
        #expect(unknown.stderr == "mailto-route: no outbox entry '20260101-000000-000000-00000000'\n")
        let traversal = try mailtoRoute(["outbox", "drop", "../../config"], in: sandbox)
        #expect(traversal.status == 65)
        let missing = try mailtoRoute(["outbox", "show"], in: sandbox)
        #expect(missing.status == 64)
    }

    @Test func retryMakesAnEntryDueAndDropDeletesIt() throws {
        let sandbox = try Sandbox()
        let box = outbox(in: sandbox)
        let entry = try box.enqueue(message("Later"), failedAttempt: Failure(kind: .transient, message: "timeout"))
        #expect(try box.due().isEmpty)

        // No account: due now, and why it is not sent now (78).
        let retry = try mailtoRoute(["outbox", "retry", entry.id], in: sandbox)
        #expect(retry.status == 78, "\(retry)")
        #expect(retry.stdout == "\(entry.id): due now; it is sent at the next flush once the account works.\n")
        #expect(retry.stderr.contains("outbox flush needs a configured account"), "\(retry)")
        #expect(try box.due().map(\.id) == [entry.id])

        // --json: one document (a script parses stdout whole), the entry with the error.
        let retryJSON = try mailtoRoute(["outbox", "retry", entry.id, "--json"], in: sandbox)
        #expect(retryJSON.status == 78, "\(retryJSON)")
        #expect(retryJSON.stderr.isEmpty, "\(retryJSON)")
        let document = try jsonObject(retryJSON.stdout)
        #expect(document["id"] as? String == entry.id && document["state"] as? String == "queued", "\(document)")
        let error = try #require(document["error"] as? [String: Any], "\(document)")
        #expect(error["kind"] as? String == "configuration")
        #expect((error["message"] as? String)?.contains("outbox flush needs a configured account") == true, "\(error)")

        let drop = try mailtoRoute(["outbox", "drop", entry.id, "--json"], in: sandbox)
        #expect(drop.status == 0)
        #expect(drop.stdout == "{\"dropped\": \"\(entry.id)\"}\n")
        #expect(try box.list().isEmpty)
    }

    @Test func flushWithoutAnAccountSaysSoAndKeepsEverything() throws {
        let sandbox = try Sandbox()
        let nothing = try mailtoRoute(["outbox", "flush"], in: sandbox)
        #expect(nothing.status == 0)
        #expect(nothing.stdout == "The outbox is empty: nothing to send.\n")

        let box = outbox(in: sandbox)
        try box.enqueue(message("One"))
        let result = try mailtoRoute(["outbox", "flush"], in: sandbox)
        #expect(result.status == 78)
        #expect(result.stderr.contains("outbox flush needs a configured account"), "\(result)")
        #expect(result.stderr.contains("1 message stays queued"))
        #expect(try box.list().count == 1)
    }

    @Test func aRelativeXDGStateHomeIsIgnoredAsTheSpecSays() throws {
        let sandbox = try Sandbox()
        try outbox(in: sandbox).enqueue(message("Default place"))
        let result = try mailtoRoute(["outbox", "list"], in: sandbox, extraEnvironment: ["XDG_STATE_HOME": "relative/state"])
        #expect(result.stdout.contains("Default place"), "\(result)")
    }
}
