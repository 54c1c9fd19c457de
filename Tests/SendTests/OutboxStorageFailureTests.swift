import Foundation
import Outbox
import Testing
import TestSupport

/// The sandbox's outbox directory on a tmpfs of its own for the duration of `body`.
private func withOutboxOnTmpfs(_ sandbox: Sandbox, size: String, _ body: (Outbox) throws -> Void) throws {
    let box = sandboxOutbox(sandbox)
    try withTmpfs(at: box.directory, size: size, mode: "0700") { try body(box) }
}

/// `outbox watch` for `seconds`, then SIGTERM; returns its exit status and what it printed.
private func watchFor(_ seconds: Double, in sandbox: Sandbox) throws -> (status: Int32?, log: String) {
    let log = sandbox.root.appendingPathComponent("watch.log").path
    let watch = try ServerProcess([mailtoRouteBinary, "outbox", "watch"], environment: sandbox.environment, output: log)
    usleep(UInt32(seconds * 1_000_000))
    let running = watch.isRunning
    let status = watch.terminate()
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return (running ? status : -1, text)
}

/// docs/design.md rule 9, against a real server and a real read-only or full
/// file system: nothing is sent twice because a file could not be written.
@Suite struct OutboxStorageFailureTests {
    /// Before: 3 flushes delivered each message 3 times (each exiting 0), and 20 s of
    /// `watch` 20 times more.
    @Test(.enabled(if: canMountTmpfs, "mounting a tmpfs needs root"))
    func aReadOnlyOutboxDeliversEachMessageAtMostOnceToThreeFlushesAndTwentySecondsOfWatch() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        try withOutboxOnTmpfs(sandbox, size: "1m") { box in
            let ids = try enqueueMessages(box, 3)
            let remounted = try run("/bin/mount", ["-o", "remount,ro", box.directory])
            try #require(remounted.status == 0, "\(remounted)")

            for _ in 0..<3 {
                let flush = try mailtoRoute(["outbox", "flush"], in: sandbox)
                // The outbox's error: a read-only file system is the user's to fix (78).
                #expect(flush.status == 78, "\(flush)")
                #expect(flush.stderr.contains("the flush stopped"), "\(flush)")
                #expect(flush.stderr.contains("Read-only file system"), "\(flush)")
            }
            let watch = try watchFor(20, in: sandbox)
            #expect(watch.status == 0, "\(watch.log)")
            #expect(watch.log.contains("Read-only file system"), "\(watch.log)")

            let received = try server.receivedMessageIDs()
            let counts = Dictionary(received.map { ($0, 1) }, uniquingKeysWith: +)
            #expect(counts.values.allSatisfy { $0 <= 1 }, "delivered more than once: \(counts)")
            #expect(Set(received).isSubset(of: Set(ids)))
            // Nothing lost: not recorded as sent, so still queued.
            #expect(try box.list().compactMap(\.messageId) == ids)
            print("read-only outbox, 3 flushes and 20 s of watch: deliveries=\(received.count) of \(ids.count) messages")
        }
    }

    /// Before: `watch` tried every second (its failures could not be written, so the
    /// message stayed due).
    @Test(.enabled(if: canMountTmpfs, "mounting a tmpfs needs root"))
    func aFullOutboxAndAServerSaying451AreTriedAtMostOncePerMessageInTwentySecondsOfWatch() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, dataReply: "451 4.3.0 try again later")
        try writeAccount(sandbox, port: server.port, security: "none")
        try withOutboxOnTmpfs(sandbox, size: "64k") { box in
            let ids = try enqueueMessages(box, 3)
            let filler = try run("/bin/dd", ["if=/dev/zero", "of=\(box.directory)/.filler", "bs=4096"])
            try #require(filler.stderr.contains("No space left on device"), "\(filler)")

            let watch = try watchFor(20, in: sandbox)
            #expect(watch.status == 0, "\(watch.log)")
            // libcurl drops the connection after a refused message: one connection per try.
            #expect(server.connections <= ids.count, "\(server.connections) tries in 20 s\n\(watch.log)")
            #expect(watch.log.contains("No space left on device"), "\(watch.log)")
            #expect(try box.list().compactMap(\.messageId) == ids)
            print("full outbox, 451 server, 20 s of watch: tries=\(server.connections) for \(ids.count) messages")
        }
    }
}

/// When neither the outbox nor the drafts can take a message the server
/// could not take now, the error says so, with one kind and status whether the disk is
/// read-only or full (the user's storage needs them: configuration, 78), never transient.
@Suite struct NowhereToKeepTests {
    @Test(.enabled(if: canMountTmpfs, "mounting a tmpfs needs root"), arguments: ["read-only", "full"])
    func aMessageThatCannotBeKeptAnywhereIsAConfigurationError(storage: String) throws {
        let sandbox = try Sandbox()
        let down = try SMTPTestServer(.plain)
        let port = down.port
        down.stop()
        try writeAccount(sandbox, port: port, security: "none")
        let outbox = sandboxOutbox(sandbox).directory
        let drafts = sandbox.dataHome.appendingPathComponent("mailto-route/drafts").path
        try withTmpfs(at: outbox, size: "64k", mode: "0700") {
            try withTmpfs(at: drafts, size: "64k", mode: "0700") {
                for directory in [outbox, drafts] {
                    if storage == "read-only" {
                        let remounted = try run("/bin/mount", ["-o", "remount,ro", directory])
                        try #require(remounted.status == 0, "\(remounted)")
                    } else {
                        // Filled to the last block.
                        _ = try run("/bin/dd", ["if=/dev/zero", "of=\(directory)/filler", "bs=4k"])
                    }
                }
                let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x", "--json"], in: sandbox)
                #expect(result.status == 78, "\(result)")
                let report = try jsonObject(result.stdout)
                #expect(report["result"] as? String == "failed")
                let error = try #require(report["error"] as? [String: String])
                #expect(error["kind"] == "configuration", "\(error)")
                #expect(error["message"]?.contains("could not be kept anywhere") == true, "\(error)")
            }
        }
    }

    /// A sent draft one of whose recipients the server refuses for good, when their copy
    /// can be kept neither as a draft nor in the outbox (both disks full): the draft stays,
    /// said, rather than going with their copy nowhere (rule 3). With only the drafts' disk
    /// full, their copy is kept in the outbox's failed/ and the draft goes.
    @Test(.enabled(if: canMountTmpfs, "mounting a tmpfs needs root"), arguments: [true, false])
    func theCopyForARefusedRecipientIsKeptSomewhere(outboxFull: Bool) throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, refuse: ["ann@example.net"])
        try writeAccount(sandbox, port: server.port, security: "none")
        let drafts = sandbox.dataHome.appendingPathComponent("mailto-route/drafts").path
        let box = sandboxOutbox(sandbox)
        try withTmpfs(at: drafts, size: "64k", mode: "0700") {
            try withTmpfs(at: box.directory, size: "64k", mode: "0700") {
                let id = try saveDraft(sandbox)
                _ = try run("/bin/dd", ["if=/dev/zero", "of=\(drafts)/filler", "bs=4k"])
                if outboxFull { _ = try run("/bin/dd", ["if=/dev/zero", "of=\(box.directory)/.filler", "bs=4k"]) }
                let result = try mailtoRoute(["drafts", "send", id, "--json"], in: sandbox)
                #expect(server.messages.count == 1, "the others got it")
                #expect(result.stdout.contains("the copy for ann@example.net, whom the server refused, could not be saved as a draft"),
                        "\(result)")
                if outboxFull {
                    #expect(draftExists(sandbox, id), "\(result)")
                } else {
                    #expect(!draftExists(sandbox, id), "\(result)")
                    #expect(try box.failed().map(\.recipients) == [["ann@example.net"]])
                }
            }
        }
    }
}

/// Rule 3 for an attachment that can be looked at but not read (another user's file): a
/// message that cannot go keeps the rest in its draft, the other attachments included, and
/// says what was left out.
@Suite struct UnreadableAttachmentTests {
    @Test(.enabled(if: getuid() == 0, "running as another user needs root"))
    func aDraftKeepsTheMessageWithoutAnAttachmentItCannotRead() throws {
        let sandbox = try Sandbox()
        let down = try SMTPTestServer(.plain, refuse: ["joe@example.com"])
        try writeAccount(sandbox, port: down.port, security: "none")
        // The file is root's (0600); mailto-route runs as nobody, in a sandbox of nobody's.
        let secret = try sandbox.write("root's only", to: "secret.txt", mode: 0o600)
        let notes = try sandbox.write("anyone may read this", to: "notes.txt", mode: 0o644)
        for argv in [["/bin/chmod", "755", sandbox.root.path], ["/bin/chown", "-R", "nobody:nogroup", sandbox.home.path,
                                                                 sandbox.runtimeDir.path]] {
            try #require(try run(argv[0], Array(argv.dropFirst())).status == 0)
        }
        try #require(try run("/bin/chown", ["root:root", secret.path]).status == 0)
        let result = try run("/usr/bin/setpriv", ["--reuid", "nobody", "--regid", "nogroup", "--clear-groups", mailtoRouteBinary,
                                                  "send", "--to", "joe@example.com", "--subject", "Kept", "--body", "x",
                                                  "--attach", secret.path, "--attach", notes.path, "--json"],
                             environment: sandbox.environment, timeout: 30)
        let report = try jsonObject(result.stdout)
        let draft = try #require(report["draft"] as? String, "\(result)")
        #expect(try sandbox.header("Subject", of: URL(fileURLWithPath: draft)) == "Kept")
        #expect((report["warnings"] as? [String])?.contains { $0.hasPrefix("attachments secret.txt left out of the draft") } == true,
                "\(report)")
        // Only the one it cannot read is left out.
        let parts = try #require(try pythonView(of: URL(fileURLWithPath: draft))["parts"] as? [[String: Any]])
        #expect(parts.compactMap { $0["filename"] as? String } == ["notes.txt"], "\(parts)")
    }
}
