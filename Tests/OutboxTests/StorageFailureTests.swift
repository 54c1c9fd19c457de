import Foundation
import MailtoCore
@testable import Outbox
import Testing
import TestSupport

let hasStrace = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")

/// A tmpfs of `size` mounted in the sandbox for the duration of `body` (without one,
/// these tests are skipped and `aWriteFailingHalfWay…` still covers a write failing).
func withSmallFileSystem(_ sandbox: Sandbox, size: String, _ body: (String) throws -> Void) throws {
    let point = sandbox.root.appendingPathComponent("small").path
    try withTmpfs(at: point, size: size) { try body(point) }
}

func leftovers(in directory: String) -> [String] {
    names(in: directory).filter { $0.hasPrefix(".") }
}

@Suite struct StorageFailureTests {
    @Test(.enabled(if: canMountTmpfs)) func aFullDiskIsAClearErrorAndLeavesNoHalfEntry() throws {
        let sandbox = try Sandbox()
        try withSmallFileSystem(sandbox, size: "160k") { point in
            let outbox = Outbox(directory: point + "/outbox")
            var queued: [OutboxEntry] = []
            var failure: OutboxError?
            for index in 0..<100 {
                do {
                    queued.append(try outbox.enqueue(sampleMessage(index, bodySize: 20_000)))
                } catch let error as OutboxError {
                    failure = error
                    break
                }
            }
            let error = try #require(failure, "the small disk never filled up")
            #expect(error.kind == .transient)
            #expect(error.errno == ENOSPC)
            #expect(error.description.contains("No space left on device"), "\(error)")
            #expect(error.description.contains(outbox.directory), "\(error)")
            // What was queued is whole; what failed is nowhere.
            #expect(try outbox.list().map(\.id) == queued.map(\.id), "\(error)")
            for entry in queued {
                #expect(try outbox.message(entry.id).count == entry.size)
            }
            #expect(leftovers(in: outbox.directory).isEmpty)
        }
    }

    @Test(.enabled(if: canMountTmpfs)) func aReadOnlyOutboxIsAClearErrorAndLosesNothing() throws {
        let sandbox = try Sandbox()
        try withSmallFileSystem(sandbox, size: "1m") { point in
            let outbox = Outbox(directory: point + "/outbox")
            let drafts = Drafts(directory: point + "/drafts")
            let log = OutcomeLog(path: point + "/outcomes.log")
            let first = try outbox.enqueue(sampleMessage(0)).id
            let second = try outbox.enqueue(sampleMessage(1)).id
            let remounted = try run("/bin/mount", ["-o", "remount,ro", point])
            try #require(remounted.status == 0, "\(remounted)")

            do {
                try outbox.enqueue(sampleMessage(2))
                Issue.record("queued into a read-only outbox")
            } catch let error as OutboxError {
                #expect(error.kind == .configuration)
                #expect(error.errno == EROFS)
                #expect(error.description.contains("Read-only file system"), "\(error)")
                #expect(error.description.contains(outbox.directory), "\(error)")
            }
            // docs/design.md rule 9: an attempt that cannot be recorded is not made, and the
            // flush stops with the outbox's error; three flushes send nothing, twice nothing.
            var sent: [String] = []
            for allQueued in [false, true, true] {
                let reports = try outbox.flush(allQueued: allQueued) { sent.append($0.entry.id) }
                #expect(reports.map(\.outcome) == [.skipped])
                #expect(reports.map(\.stoppedFlush) == [true])
                let error = try #require(FlushReport.stoppingError(in: reports))
                #expect(error.errno == EROFS && error.kind == .configuration)
                #expect(error.description.contains("cannot record the attempt in \(outbox.directory)/.attempt-\(first)"), "\(error)")
            }
            #expect(sent.isEmpty, "sent with a read-only outbox: \(sent)")
            #expect(try outbox.list().map(\.id) == [first, second])
            #expect(try outbox.list().allSatisfy { $0.attempts == 0 })

            #expect(throws: OutboxError.self) { try drafts.save(sampleMessage(3).bytes) }
            #expect(throws: OutboxError.self) { try log.append(Outcome(source: "send", path: "draft", result: "saved")) }
        }
    }

    /// A sent message is taken out of the outbox on another thread while the next one is
    /// sent, and the next one cannot be accepted before that is done: when it cannot be
    /// done (here its `.sent-` name is taken by a directory, so the rename fails), the
    /// sender waiting before the end of the next message is told to stop, the flush stops,
    /// and only the message whose removal failed can be sent again. Nothing is lost.
    @Test func aSentMessageThatCannotBeTakenOutStopsTheNextBeforeItsEnd() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let ids = try (0..<3).map { try outbox.enqueue(sampleMessage($0)).id }
        let blocker = outbox.directory + "/.sent-" + ids[1]
        var accepted: [String] = []
        var stopped: [String] = []
        let reports = try outbox.flush(allQueued: true) { claim in
            do {
                try claim.beforeAcceptance?()
            } catch {
                stopped.append(claim.entry.id)
                throw error
            }
            accepted.append(claim.entry.id)
            if claim.entry.id == ids[1] {
                try FileManager.default.createDirectory(atPath: blocker + "/in-the-way", withIntermediateDirectories: true)
            }
        }
        #expect(accepted == [ids[0], ids[1]])
        #expect(stopped == [ids[2]], "the third message was not held before its end")
        #expect(reports.map(\.id) == [ids[0], ids[1]])
        #expect(reports.map(\.outcome) == [.sent, .sent])
        #expect(reports[1].storeError?.errno == EISDIR, "\(reports)")
        #expect(reports[1].stoppedFlush)
        #expect(FlushReport.stoppingError(in: reports)?.errno == EISDIR)

        try FileManager.default.removeItem(atPath: blocker)
        // The second may be sent again (a duplicate, never a loss); the third was never
        // accepted and waits, unsent.
        #expect(try outbox.list().map(\.id) == [ids[1], ids[2]])
    }

    /// With a full outbox and a server answering 451, each message is
    /// tried at most once: the attempt is recorded (an empty file needs no space) but its
    /// failure cannot be, so it waits its back-off, and a flush that would fold the
    /// unrecorded attempt in stops without sending.
    @Test(.enabled(if: canMountTmpfs)) func aFullOutboxTriesEachMessageAtMostOnce() throws {
        let sandbox = try Sandbox()
        try withSmallFileSystem(sandbox, size: "64k") { point in
            let outbox = Outbox(directory: point + "/outbox")
            let ids = try (0..<3).map { try outbox.enqueue(sampleMessage($0)).id }
            // Fill what is left.
            let filler = try run("/bin/dd", ["if=/dev/zero", "of=\(point)/filler", "bs=4096"])
            try #require(filler.status != 0 && filler.stderr.contains("No space left"), "\(filler)")

            var tried: [String] = []
            var stops: [OutboxError] = []
            for allQueued in [false, false, true, true, false] {
                let reports = try outbox.flush(allQueued: allQueued) { claim in
                    tried.append(claim.entry.id)
                    throw FakeSendError(kind: .transient)
                }
                if let error = FlushReport.stoppingError(in: reports) { stops.append(error) }
            }
            let counts = Dictionary(tried.map { ($0, 1) }, uniquingKeysWith: +)
            #expect(counts.values.allSatisfy { $0 <= 1 }, "tried again: \(tried)")
            #expect(!stops.isEmpty && stops.allSatisfy { $0.errno == ENOSPC }, "\(stops)")
            // Nothing lost, and what was tried counts its attempt.
            let entries = try outbox.list()
            #expect(entries.map(\.id) == ids)
            for entry in entries {
                #expect(entry.attempts == counts[entry.id, default: 0], "\(entry)")
            }
        }
    }

    @Test func aWriteFailingHalfWayLeavesNoEntry() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        try outbox.enqueue(sampleMessage(0))
        // RLIMIT_FSIZE makes write(2) fail with EFBIG part-way through the message.
        let result = try run(tortureBinary, ["enqueue", outbox.directory, "100000", "5000"])

        #expect(result.status == 1)
        #expect(result.stderr.contains("File too large"), "\(result)")
        #expect(result.stderr.contains(outbox.directory), "\(result)")
        #expect(try outbox.list().count == 1)
        #expect(leftovers(in: outbox.directory).isEmpty)
    }

    /// docs/design.md: tmp → fsync → rename → fsync of the directory, observed with strace.
    @Test(.enabled(if: hasStrace)) func enqueueSyncsTheFilesBeforeTheRenameAndTheDirectoryAfter() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        try outbox.enqueue(sampleMessage(0))  // the directories exist: only the entry is traced
        let trace = sandbox.root.appendingPathComponent("trace").path
        let result = try run("/usr/bin/strace", [
            "-f", "-qq", "-e", "trace=openat,fsync,rename,mkdir", "-o", trace,
            tortureBinary, "enqueue", outbox.directory, "1000",
        ])
        try #require(result.status == 0, "\(result)")
        let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // Each event named by the path it concerns.
        var pathOfDescriptor: [String: String] = [:]
        var events: [String] = []
        for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
            let text = String(line)
            let quoted = text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            if text.contains("openat("), let path = quoted.first, let result = text.split(separator: "=").last {
                pathOfDescriptor[result.trimmingCharacters(in: .whitespaces)] = path
            } else if let start = text.range(of: "fsync("), let end = text[start.upperBound...].firstIndex(of: ")") {
                events.append("fsync " + (pathOfDescriptor[String(text[start.upperBound..<end])] ?? "?"))
            } else if text.contains("rename("), quoted.count == 2, text.hasSuffix("= 0") {
                events.append("rename " + quoted[1])
            }
        }
        let directory = outbox.directory
        let expected = [
            "fsync \(directory)/.tmp-\(id)/message.eml",
            "fsync \(directory)/.tmp-\(id)/meta.json",
            "fsync \(directory)/.tmp-\(id)",
            "rename \(directory)/\(id)",
            "fsync \(directory)",
        ]
        #expect(events.filter { !$0.hasPrefix("fsync /") || $0.contains(directory) } == expected, "\(events)")
    }
}
