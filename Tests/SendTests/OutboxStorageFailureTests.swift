import Foundation
import Outbox
import Testing
import TestSupport

/// The sandbox's outbox directory on a tmpfs of its own for the duration of `body`.
private func withOutboxOnTmpfs(_ sandbox: Sandbox, size: String, _ body: (Outbox) throws -> Void) throws {
    let box = sandboxOutbox(sandbox)
    try withTmpfs(at: box.directory, size: size, mode: "0700") { try body(box) }
}

private let hasStrace = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")

/// After a flush that failed as a whole, `outbox watch` holds the next back for a minute
/// (FlushBackoff), in whole seconds: 59 of them when a second began meanwhile.
private let aboutAMinute = 59_000

/// `outbox watch`, under strace, until it has said its first flush stopped for the outbox's
/// sake and then either gone to sleep for about a minute or flushed again; then SIGTERM.
/// Returns its exit status, what it printed, and the longest it meant to sleep in between, in
/// milliseconds: the longest poll its process made (its own sleep; libcurl's waits for the
/// server's goodbye are a second at most). The watch's own decision, read rather than waited
/// out: without a back-off it would sleep a second and flush again, every second.
private func watchUntilItSleeps(in sandbox: Sandbox) throws -> (status: Int32?, log: String, sleep: Int) {
    let log = sandbox.root.appendingPathComponent("watch.log").path
    let trace = sandbox.root.appendingPathComponent("watch.strace").path
    let tracer = try ServerProcess(["/usr/bin/strace", "-f", "-qq", "-s", "64", "-e", "trace=write,poll,ppoll", "-o", trace,
                                    mailtoRouteBinary, "outbox", "watch"], environment: sandbox.environment, output: log)
    defer { tracer.stop() }
    var after: (pid: pid_t, polls: [Int], again: Bool)?
    var traced = true
    try waitUntil("the watch said its flush stopped, then slept or flushed again: \(sandbox.contents(URL(fileURLWithPath: log)) ?? "")") {
        traced = tracer.isRunning
        after = polls(after: "mailto-route: the flush stopped", in: (try? String(contentsOfFile: trace, encoding: .utf8)) ?? "")
        guard let after else { return !traced }
        return !traced || after.again || after.polls.contains { $0 >= aboutAMinute }
    }
    if let after { kill(after.pid, SIGTERM) }
    // strace ends with the watch, with its exit status.
    let status = traced ? tracer.wait(timeout: patience) : nil
    return (status, sandbox.contents(URL(fileURLWithPath: log)) ?? "", after?.polls.max() ?? 0)
}

/// From an strace log (`-f`): the process that first wrote a line beginning with `report` to
/// its standard error; the timeouts, in milliseconds, of the polls it made after, up to the
/// next such line (`poll([…], 2, 60001)`, or where there is no poll (aarch64) `ppoll([…], 2,
/// {tv_sec=60, tv_nsec=1000000}, NULL, 8)`); and whether there was a next.
private func polls(after report: String, in trace: String) -> (pid: pid_t, polls: [Int], again: Bool)? {
    var found: (pid: pid_t, polls: [Int], again: Bool)?
    for line in trace.split(separator: "\n") {
        let fields = line.split(separator: " ", maxSplits: 1)
        guard fields.count == 2, let pid = pid_t(fields[0]) else { continue }
        let call = fields[1].drop { $0 == " " }
        if call.hasPrefix("write(2, \"\(report)") {
            if let first = found { return (first.pid, first.polls, true) }
            found = (pid, [], false)
            continue
        }
        // After the descriptors: their count, then the timeout.
        guard pid == found?.pid, call.hasPrefix("poll(") || call.hasPrefix("ppoll("),
              let descriptorsEnd = call.range(of: "], ") else { continue }
        let arguments = call[descriptorsEnd.upperBound...].split(separator: ", ").dropFirst()
        func number(after prefix: String) -> Int? {
            arguments.first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count).prefix { $0 == "-" || $0.isNumber }) }
        }
        if call.hasPrefix("poll("), let milliseconds = number(after: "") {
            found?.polls.append(milliseconds)
        } else if let seconds = number(after: "{tv_sec="), let nanoseconds = number(after: "tv_nsec=") {
            found?.polls.append(seconds * 1000 + nanoseconds / 1_000_000)
        }
    }
    return found
}

/// docs/design.md rule 9, against a real server and a real read-only or full
/// file system: nothing is sent twice because a file could not be written.
@Suite struct OutboxStorageFailureTests {
    /// Before: 3 flushes delivered each message 3 times (each exiting 0), and `watch` once
    /// more every second. Now the watch holds its next flush back (a minute, then more).
    @Test(.enabled(if: canMountTmpfs, "mounting a tmpfs needs root"), .enabled(if: hasStrace, "strace is not installed"))
    func aReadOnlyOutboxDeliversEachMessageAtMostOnceToThreeFlushesAndAWatchThatHoldsItsNextFlushBack() throws {
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
            let watch = try watchUntilItSleeps(in: sandbox)
            #expect(watch.status == 0, "\(watch.log)")
            #expect(watch.log.contains("Read-only file system"), "\(watch.log)")
            #expect(watch.sleep >= aboutAMinute, "the watch meant to sleep \(watch.sleep) ms\n\(watch.log)")

            // Counted once every sender has ended.
            let received = try server.receivedMessageIDs()
            let counts = Dictionary(received.map { ($0, 1) }, uniquingKeysWith: +)
            #expect(counts.values.allSatisfy { $0 <= 1 }, "delivered more than once: \(counts)")
            #expect(Set(received).isSubset(of: Set(ids)))
            // Nothing lost: not recorded as sent, so still queued.
            #expect(try box.list().compactMap(\.messageId) == ids)
            print("read-only outbox, 3 flushes and a watch: deliveries=\(received.count) of \(ids.count) messages")
        }
    }

    /// Before: `watch` tried every second (its failures could not be written, so the
    /// message stayed due). Now it holds its next flush back (a minute, then more).
    @Test(.enabled(if: canMountTmpfs, "mounting a tmpfs needs root"), .enabled(if: hasStrace, "strace is not installed"))
    func aFullOutboxAndAServerSaying451AreTriedAtMostOncePerMessageByAWatchThatHoldsItsNextFlushBack() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, dataReply: "451 4.3.0 try again later")
        try writeAccount(sandbox, port: server.port, security: "none")
        try withOutboxOnTmpfs(sandbox, size: "64k") { box in
            let ids = try enqueueMessages(box, 3)
            let filler = try run("/bin/dd", ["if=/dev/zero", "of=\(box.directory)/.filler", "bs=4096"])
            try #require(filler.stderr.contains("No space left on device"), "\(filler)")

            let watch = try watchUntilItSleeps(in: sandbox)
            #expect(watch.status == 0, "\(watch.log)")
            #expect(watch.sleep >= aboutAMinute, "the watch meant to sleep \(watch.sleep) ms\n\(watch.log)")
            // libcurl drops the connection after a refused message: one connection per try.
            #expect(server.connections <= ids.count, "\(server.connections) tries\n\(watch.log)")
            #expect(watch.log.contains("No space left on device"), "\(watch.log)")
            #expect(try box.list().compactMap(\.messageId) == ids)
            print("full outbox, 451 server, a watch: tries=\(server.connections) for \(ids.count) messages")
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
