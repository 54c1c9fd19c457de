import Foundation
import MailtoCore
import Outbox
import Testing
import TestSupport

/// The outbox where the binary running in `sandbox` keeps it.
func sandboxOutbox(_ sandbox: Sandbox) -> Outbox {
    Outbox(directory: sandbox.stateHome.appendingPathComponent("mailto-route/outbox").path)
}

/// Queues `count` small messages, each with its own Message-ID; returns the Message-IDs.
@discardableResult
func enqueueMessages(_ outbox: Outbox, _ count: Int, to recipient: (Int) -> String = { _ in "joe@example.com" }) throws -> [String] {
    try (0..<count).map { index in
        let messageId = "<queued-\(index)-\(UUID().uuidString)@example.org>"
        let text = "From: Jane Doe <jane@example.org>\r\nTo: \(recipient(index))\r\nSubject: queued \(index)\r\n"
            + "Message-ID: \(messageId)\r\n\r\nHello \(index)\r\n.leading dot\r\n"
        try outbox.enqueue(OutboxMessage(bytes: Array(text.utf8), envelopeFrom: "jane@example.org", recipients: [recipient(index)]))
        return messageId
    }
}

/// `mailto-route ARGS` started in `sandbox` without waiting (output in a file).
func startMailtoRoute(_ arguments: [String], in sandbox: Sandbox) throws -> ServerProcess {
    let log = sandbox.root.appendingPathComponent("run-\(UUID().uuidString).log").path
    return try ServerProcess([mailtoRouteBinary] + arguments, environment: sandbox.environment, output: log)
}

@Suite struct OutboxFlushTests {
    /// Server down → queued (75) → server up → flush → delivered once, with
    /// the Message-ID it was queued with.
    @Test func aMessageWaitsWhileTheServerIsDownAndIsDeliveredOnceWhenItIsBack() throws {
        let sandbox = try Sandbox()
        let box = sandboxOutbox(sandbox)
        let first = try SMTPTestServer(.plain)
        let port = first.port
        first.stop()
        try writeAccount(sandbox, port: port, security: "none")
        let ids = try enqueueMessages(box, 3)

        let down = try mailtoRoute(["outbox", "flush", "--json"], in: sandbox)
        #expect(down.status == 75, "\(down)")
        let flushed = try #require(try jsonObject(down.stdout)["flushed"] as? [[String: Any]])
        #expect(flushed.map { $0["result"] as? String } == ["queued", "queued", "queued"])
        // One connection attempt, not three: the others are not tried.
        let errors = flushed.compactMap { ($0["error"] as? [String: Any])?["message"] as? String }
        #expect(errors.count == 3 && errors.dropFirst().allSatisfy { $0.hasPrefix("not tried: cannot connect") }, "\(errors)")
        #expect(try box.list().count == 3)
        #expect(try box.list().allSatisfy { $0.attempts == 1 && $0.lastError?.kind == .transient })

        // Right after the failure, a flush the user runs sends at once,
        // as `postqueue -f` would; the back-off is for `watch` and the quick flush.
        let server = try SMTPTestServer(.plain, port: port)
        let up = try mailtoRoute(["outbox", "flush"], in: sandbox)
        #expect(up.status == 0, "\(up)")
        #expect(up.stdout.split(separator: "\n").count == 3)
        #expect(up.stdout.contains("sent to joe@example.com via 127.0.0.1:\(port): 250 2.0.0 Ok: queued as TEST1"))
        #expect(try server.receivedMessageIDs() == ids)
        #expect(try box.list().isEmpty)
        let again = try mailtoRoute(["outbox", "flush"], in: sandbox)
        #expect(again.status == 0)
        #expect(try server.receivedMessageIDs() == ids, "delivered twice")
        let view = try pythonView(of: try #require(server.messages.first))
        #expect((view["parts"] as? [[String: Any]])?.first?["text"] as? String == "Hello 0\r\n.leading dot\r\n")

        let log = try String(contentsOf: sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log"), encoding: .utf8)
        let results = log.split(separator: "\n").compactMap { try? jsonObject(String($0)) }.map { "\($0["path"] ?? "") \($0["result"] ?? "")" }
        #expect(results == Array(repeating: "outbox queued", count: 3) + Array(repeating: "outbox sent", count: 3))
    }

    /// `flush --json` names the server also when there is nothing to send
    /// (null without an account).
    @Test func flushJSONAlwaysNamesTheServer() throws {
        let sandbox = try Sandbox()
        let bare = try mailtoRoute(["outbox", "flush", "--json"], in: sandbox)
        #expect(bare.status == 0, "\(bare)")
        let bareObject = try jsonObject(bare.stdout)
        #expect(bareObject.keys.contains("server") && bareObject["server"] is NSNull, "\(bare)")
        #expect((bareObject["flushed"] as? [Any])?.isEmpty == true, "\(bare)")

        try writeAccount(sandbox, port: 2525, security: "none")
        let empty = try mailtoRoute(["outbox", "flush", "--json"], in: sandbox)
        #expect(empty.status == 0, "\(empty)")
        #expect(try jsonObject(empty.stdout)["server"] as? String == "127.0.0.1:2525", "\(empty)")
    }

    /// A server that accepts connections and never answers costs one timeout, not one per
    /// message.
    @Test func aSilentServerCostsOneTimeoutForTheWholeFlush() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.silent)
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        try (try String(contentsOf: config, encoding: .utf8) + "timeout=2\n").write(to: config, atomically: false, encoding: .utf8)
        try enqueueMessages(sandboxOutbox(sandbox), 3)
        let result = try mailtoRoute(["outbox", "flush", "--json"], in: sandbox)
        #expect(result.status == 75, "\(result)")
        let flushed = try #require(try jsonObject(result.stdout)["flushed"] as? [[String: Any]])
        let errors = flushed.compactMap { ($0["error"] as? [String: Any])?["message"] as? String }
        #expect(errors.count == 3)
        #expect(errors.first?.contains("timed out") == true, "\(errors)")
        #expect(errors.dropFirst().allSatisfy { $0.hasPrefix("not tried: ") }, "\(errors)")
        // One session waited on the server, and no other was tried: counted once the flush has
        // exited and the server has seen that session's close.
        _ = try #require(server.firstClose(), "the flush never closed its connection")
        #expect(server.acceptedTimes.count == 1, "\(server.acceptedTimes)")
    }

    /// A flush holds an open descriptor per message of two batches, and a desktop session
    /// often lets a process open only 1,024 files (systemd's soft default): with a limit of
    /// 256, soft and hard, 600 queued messages all go, over one connection (smaller
    /// batches); with only the soft limit that low, the flush raises it, and 600 more go.
    @Test func aLowLimitOfOpenFilesStillSendsEveryMessage() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        var sent: [String] = []
        for limit in ["ulimit -n 256", "ulimit -Sn 256"] {
            let ids = try enqueueMessages(sandboxOutbox(sandbox), 600)
            let result = try run("/bin/sh", ["-c", limit + " && exec \"$0\" outbox flush --json", mailtoRouteBinary],
                                 environment: sandbox.environment)
            #expect(result.status == 0, "\(limit): \(result.stderr)")
            let flushed = try #require(try jsonObject(result.stdout)["flushed"] as? [[String: Any]])
            #expect(flushed.count == 600 && flushed.allSatisfy { $0["result"] as? String == "sent" }, "\(limit)")
            sent += ids
        }
        #expect(try server.receivedMessageIDs() == sent)
        #expect(server.connections == 2)
        #expect(try sandboxOutbox(sandbox).list().isEmpty)
    }

    @Test func twentyQueuedMessagesGoOutOverOneConnection() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let ids = try enqueueMessages(sandboxOutbox(sandbox), 20)
        let result = try mailtoRoute(["outbox", "flush", "--json"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let flushed = try #require(try jsonObject(result.stdout)["flushed"] as? [[String: Any]])
        #expect(flushed.count == 20 && flushed.allSatisfy { $0["result"] as? String == "sent" })
        #expect(flushed.last?["reply"] as? String == "250 2.0.0 Ok: queued as TEST20")
        #expect(try server.receivedMessageIDs() == ids)
        #expect(server.connections == 1)
        for message in server.messages {
            let envelope = try server.envelope(of: message)
            #expect(envelope["mail_from"] as? String == "jane@example.org")
            #expect(envelope["rcpt_tos"] as? [String] == ["joe@example.com"])
        }
    }

    @Test func aRefusedRecipientMovesItsMessageToFailedAndTheOthersGoOut() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, refuse: ["nobody@example.com"])
        try writeAccount(sandbox, port: server.port, security: "none")
        let box = sandboxOutbox(sandbox)
        let ids = try enqueueMessages(box, 3, to: { $0 == 1 ? "nobody@example.com" : "joe@example.com" })
        let result = try mailtoRoute(["outbox", "flush"], in: sandbox)
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("failed, moved to failed/"))
        #expect(result.stdout.contains("permanent: 127.0.0.1:\(server.port) refused every recipient: nobody@example.com (550 5.1.1"))
        #expect(try server.receivedMessageIDs() == [ids[0], ids[2]])
        // libcurl closes the connection after a failed transfer (smtp.c, smtp_done: "SMTP
        // done with bad status"), so the message after a refusal connects again.
        #expect(server.connections == 2)
        #expect(try box.list().isEmpty)
        let failed = try box.failed()
        #expect(failed.map(\.recipients) == [["nobody@example.com"]])
        #expect(failed.first?.lastError?.kind == .permanent)
    }

    /// A queued message one of whose recipients the server refuses for good: the others
    /// get it, and the flush says so, names the refused one and the draft that keeps their
    /// copy. Where no draft can be written, their copy is kept in failed/, said (rule 3).
    @Test(arguments: [true, false])
    func aRecipientRefusedInAFlushIsNamedAndKeptInADraft(draftsWritable: Bool) throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, refuse: ["nobody@example.com"])
        try writeAccount(sandbox, port: server.port, security: "none")
        let box = sandboxOutbox(sandbox)
        let text = "From: jane@example.org\r\nTo: joe@example.com, nobody@example.com\r\nSubject: Both\r\n\r\nHi\r\n"
        let entry = try box.enqueue(OutboxMessage(bytes: Array(text.utf8), envelopeFrom: "jane@example.org",
                                                  recipients: ["joe@example.com", "nobody@example.com"]))
        if !draftsWritable { try sandbox.write("not a directory", to: "home/.local/share/mailto-route/drafts") }
        let result = try mailtoRoute(["outbox", "flush", "--json"], in: sandbox)
        let flushed = try #require((try jsonObject(result.stdout)["flushed"] as? [[String: Any]])?.first, "\(result)")
        #expect(server.messages.count == 1)
        #expect(try server.envelope(of: try #require(server.messages.first))["rcpt_tos"] as? [String] == ["joe@example.com"])
        #expect(flushed["accepted"] as? [String] == ["joe@example.com"], "\(flushed)")
        let refused = try #require(flushed["refused"] as? [[String: Any]], "\(flushed)")
        #expect(refused.first?["address"] as? String == "nobody@example.com")
        if draftsWritable {
            #expect(result.status == 0, "\(result)")
            #expect(flushed["result"] as? String == "sent")
            let draft = try #require(sandbox.drafts.first)
            #expect(flushed["draft"] as? String == draft.path)
            #expect(try sandbox.header("To", of: draft) == "nobody@example.com")
            #expect(try box.list().isEmpty && box.failed().isEmpty)
        } else {
            // Sent to the others; the copy for the refused one in failed/, for them alone.
            #expect(result.status == 0, "\(result)")
            #expect(flushed["result"] as? String == "sent")
            let failed = try box.failed()
            #expect(failed.map(\.recipients) == [["nobody@example.com"]], "kept, not lost")
            #expect(failed.first?.id != entry.id && failed.first?.messageId == entry.messageId)
            let warnings = (flushed["warnings"] as? [String] ?? []).joined(separator: "\n")
            #expect(warnings.contains("could not be saved as a draft") && warnings.contains("failed/ as \(failed.first?.id ?? "?")"),
                    "\(flushed)")
            #expect(try box.list().isEmpty)
        }
    }

    @Test func withoutAnAccountEverythingStaysQueuedWith78() throws {
        let sandbox = try Sandbox()
        let box = sandboxOutbox(sandbox)
        try enqueueMessages(box, 2)
        let result = try mailtoRoute(["outbox", "flush"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("2 messages stay queued"))
        #expect(try box.list().count == 2 && box.list().allSatisfy { $0.attempts == 0 })
    }

    @Test func retrySendsTheMessageRightAwayWhenThereIsAnAccount() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let box = sandboxOutbox(sandbox)
        let ids = try enqueueMessages(box, 2)
        let entry = try #require(try box.list().last)
        try box.markAttempt(entry.id, error: Failure(kind: .permanent, message: "550 earlier"))
        #expect(try box.failed().count == 1)
        let result = try mailtoRoute(["outbox", "retry", entry.id], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("\(entry.id): sent to joe@example.com"))
        // Only the one asked for.
        #expect(try server.receivedMessageIDs() == [ids[1]])
        #expect(try box.failed().isEmpty && box.list().count == 1)
    }

    /// Two flushers at once, real processes and a real server: no message is
    /// delivered twice.
    @Test func twoFlushProcessesAtOnceNeverDeliverAMessageTwice() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let ids = try enqueueMessages(sandboxOutbox(sandbox), 100)
        let flushers = try (0..<2).map { _ in try startMailtoRoute(["outbox", "flush"], in: sandbox) }
        let statuses = flushers.map { $0.wait(timeout: 60) }
        #expect(statuses == [0, 0])
        let received = try server.receivedMessageIDs()
        #expect(received.count == 100)
        #expect(Set(received) == Set(ids))
        #expect(try sandboxOutbox(sandbox).list().isEmpty)
        // One connection per flusher that found something left to send.
        #expect((1...2).contains(server.connections))
    }

    /// `kill -9` of `mailto-route outbox flush` at random moments during a
    /// flush of 200 messages, 20 times, against a real server. Every message is delivered
    /// or still queued; a message arrives twice only when it was in flight at a kill (the
    /// server had it, the outbox had not removed it), and then its repeat is the next
    /// message the server gets (the restarted flush starts with it, the oldest).
    @Test func killedFlushesLoseNothingAndRepeatOnlyTheMessageInFlight() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let box = sandboxOutbox(sandbox)
        let queued = Set(try enqueueMessages(box, 200))
        var kills = 0
        var messageIdOf: [String: String] = [:]
        for _ in 0..<20 {
            let before = server.messages.count
            let flusher = try startMailtoRoute(["outbox", "flush"], in: sandbox)
            // Killed mid-flush: after its first delivery (looked for every 0.3 ms, so as not
            // to miss the start), at a random moment.
            try waitUntil("the flush delivered a message or ended", every: 0.000_3) {
                server.messages.count != before || !flusher.isRunning
            }
            jitter(upTo: 0.015)
            if flusher.isRunning {
                kill(flusher.pid, SIGKILL)
                kills += 1
            }
            _ = flusher.wait(timeout: 10)

            // At every moment: each message delivered or still queued.
            var delivered = Set<String>()
            for message in server.messages {
                if messageIdOf[message.path] == nil { messageIdOf[message.path] = messageID(in: message) }
                delivered.insert(messageIdOf[message.path] ?? "")
            }
            let stillQueued = Set(try box.list().compactMap(\.messageId))
            #expect(queued.isSubset(of: delivered.union(stillQueued)), "a message was lost")
        }
        let last = try mailtoRoute(["outbox", "flush"], in: sandbox)
        #expect(last.status == 0, "\(last)")

        let received = try server.receivedMessageIDs()
        let counts = Dictionary(received.map { ($0, 1) }, uniquingKeysWith: +)
        let duplicates = counts.values.reduce(0) { $0 + $1 - 1 }
        let lost = queued.subtracting(received).count
        #expect(lost == 0)
        #expect(Set(received) == queued)
        #expect(try box.list().isEmpty)
        #expect(kills >= 15, "only \(kills) kills hit a running flush")
        #expect(duplicates <= kills)
        var seen = Set<String>()
        for (index, id) in received.enumerated() where !seen.insert(id).inserted {
            #expect(received[index - 1] == id, "\(id) was delivered again, but not as the one in flight")
        }
        print("kill -9 of mailto-route outbox flush: messages=200 kills=\(kills) lost=\(lost) duplicates=\(duplicates) connections=\(server.connections)")
    }
}

/// The Message-ID field of a received message, read plainly (the final count uses
/// Python's parser).
func messageID(in message: URL) -> String? {
    guard let text = try? String(contentsOf: message, encoding: .utf8) else { return nil }
    for line in text.split(separator: "\r\n") where line.lowercased().hasPrefix("message-id:") {
        return line.dropFirst("message-id:".count).trimmingCharacters(in: .whitespaces)
    }
    return nil
}
