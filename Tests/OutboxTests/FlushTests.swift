import Foundation
import MailtoCore
@testable import Outbox
import Testing
import TestSupport

@Suite struct FlushTests {
    @Test func flushSendsWhatIsDueAndReportsEachMessage() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let now = Timestamp(secondsSinceEpoch: 1_800_000_000)
        let ok = try outbox.enqueue(sampleMessage(0), now: now).id
        let busy = try outbox.enqueue(sampleMessage(1), now: now).id
        let refused = try outbox.enqueue(sampleMessage(2), now: now).id
        let notYet = try outbox.enqueue(sampleMessage(3), now: now, failedAttempt: Failure(kind: .transient, message: "x")).id

        var sent: [String: [UInt8]] = [:]
        let reports = try outbox.flush(now: now) { claim in
            switch claim.entry.id {
            case busy: throw FakeSendError(kind: .transient)
            case refused: throw FakeSendError(kind: .permanent)
            default: sent[claim.entry.id] = try claim.readMessage()
            }
        }

        #expect(reports.map(\.id) == [ok, busy, refused])
        #expect(reports.map(\.outcome) == [.sent, .rescheduled, .failed])
        #expect(reports[1].entry.nextAttempt == now + 60)
        #expect(reports[1].error == Failure(kind: .transient, message: "fake transient failure"))
        #expect(reports.allSatisfy { $0.storeError == nil })
        #expect(sent == [ok: sampleMessage(0).bytes])
        #expect(try outbox.list().map(\.id) == [busy, notYet])
        #expect(try outbox.failed().map(\.id) == [refused])
    }

    @Test func twoFlushingThreadsNeverSendTheSameMessage() async throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        for index in 0..<100 { try outbox.enqueue(sampleMessage(index)) }
        let deliveries = Deliveries()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    _ = try? outbox.flush { claim in
                        // A send that takes a moment, so that the two threads' claims interleave.
                        jitter(upTo: 0.001)
                        deliveries.record(claim.entry.id)
                    }
                }
            }
        }
        let ids = deliveries.ids
        #expect(ids.count == 100)
        #expect(Set(ids).count == 100)
        #expect(try outbox.list().isEmpty)
    }

    @Test func twoFlushingProcessesNeverSendTheSameMessage() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        #expect(try run(tortureBinary, ["fill", outbox.directory, "200"]).status == 0)
        let log = sandbox.root.appendingPathComponent("deliveries").path

        let flushers = try (0..<2).map { _ in try start(tortureBinary, ["flush", outbox.directory, log, "1"]) }
        let results = flushers.map { $0.finish() }

        for result in results { #expect(result.status == 0, "\(result)") }
        let flushed = results.compactMap { Int($0.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") }
        let ids = deliveries(log)
        #expect(ids.count == 200)
        #expect(Set(ids).count == 200, "a message was sent twice")
        #expect(flushed.reduce(0, +) == 200)
        // Both really ran at once: each sent part of the outbox.
        #expect(flushed.allSatisfy { $0 > 0 }, "\(flushed)")
        #expect(try outbox.list().isEmpty)
    }

    /// SIGKILL at random moments during a flush of 200 messages, 20 times. Every
    /// message is delivered or still queued; a message is delivered twice only when the
    /// kill hit between its delivery and its removal (the one in flight), so at most once
    /// per kill, and its repeat comes right after it (the restarted flush starts with it,
    /// the oldest).
    @Test func killedFlushesLoseNothingAndRepeatOnlyTheMessageInFlight() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        #expect(try run(tortureBinary, ["fill", outbox.directory, "200"]).status == 0)
        let queued = Set(try outbox.list().map(\.id))
        #expect(queued.count == 200)
        let log = sandbox.root.appendingPathComponent("deliveries").path

        var kills = 0
        for _ in 0..<20 {
            let before = deliveries(log).count
            let flusher = try start(tortureBinary, ["flush", outbox.directory, log, "2"])
            // Kill it mid-flush: after its first delivery, at a random moment (the jitter:
            // where the kill lands is what the test varies).
            try waitUntil("the flush delivered a message or ended", every: 0.000_5) {
                deliveries(log).count != before || !flusher.isRunning
            }
            jitter(upTo: 0.008)
            if flusher.isRunning {
                kill(flusher.pid, SIGKILL)
                kills += 1
            }
            _ = flusher.finish()

            // At every moment: each message delivered or still queued.
            let delivered = Set(deliveries(log))
            let stillQueued = Set(try outbox.list().map(\.id))
            #expect(queued.isSubset(of: delivered.union(stillQueued)), "a message was lost")
        }
        let last = try run(tortureBinary, ["flush", outbox.directory, log])
        #expect(last.status == 0, "\(last)")

        let ids = deliveries(log)
        let counts = Dictionary(ids.map { ($0, 1) }, uniquingKeysWith: +)
        let duplicates = counts.values.reduce(0) { $0 + $1 - 1 }
        #expect(Set(ids) == queued, "lost: \(queued.subtracting(ids).count)")
        #expect(try outbox.list().isEmpty)
        #expect(kills >= 15, "only \(kills) kills hit a running flush")
        #expect(duplicates <= kills)
        // A repeat always follows the earlier delivery directly: the message in flight when
        // a flusher died (a kill can also hit the same message again on its next try).
        var seen = Set<String>()
        for (index, id) in ids.enumerated() {
            if !seen.insert(id).inserted {
                #expect(ids[index - 1] == id, "\(id) was sent again, but not as the one in flight")
            }
        }
        print("kill -9 torture: messages=200 kills=\(kills) lost=\(queued.subtracting(ids).count) duplicates=\(duplicates)")
    }
}

/// Deliveries recorded by concurrent senders.
final class Deliveries: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    func record(_ id: String) {
        lock.lock()
        recorded.append(id)
        lock.unlock()
    }

    var ids: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

/// A started subprocess whose output is collected in files (no pipe can fill up).
struct Started {
    let process: Process
    let outURL: URL
    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    func finish() -> Finished {
        process.waitUntilExit()
        let errURL = outURL.appendingPathExtension("err")
        let out = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
        return Finished(status: process.terminationStatus, stdout: out, stderr: err)
    }
}

struct Finished: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

func start(_ executable: String, _ arguments: [String]) throws -> Started {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("torture-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: outURL.appendingPathExtension("err").path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: outURL.appendingPathExtension("err"))
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return Started(process: process, outURL: outURL)
}

@Suite struct DamagedEntryTests {
    @Test func aDamagedEntryIsNamedNeverSentAndDoesNotBlockTheOthers() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let damaged = try outbox.enqueue(sampleMessage(0)).id
        let fine = try outbox.enqueue(sampleMessage(1)).id
        try Data("{\"id\": tru".utf8).write(to: URL(fileURLWithPath: outbox.directory + "/" + damaged + "/meta.json"))

        #expect(try outbox.list().map(\.id) == [fine])
        let found = try outbox.damaged()
        #expect(found.map(\.id) == [damaged])
        #expect(found.first?.error.description.contains("damaged outbox metadata") == true)
        var sent: [String] = []
        let reports = try outbox.flush { sent.append($0.entry.id) }
        #expect(reports.map(\.outcome) == [.sent])
        #expect(sent == [fine])
        // Still there for the user to look at.
        #expect(names(in: outbox.directory).filter { !$0.hasPrefix(".") } == [damaged])
        #expect(throws: OutboxError.self) { try outbox.entry(damaged) }
    }
}
