import Foundation
import MailtoCore
@testable import Outbox
import Testing
import TestSupport

/// docs/design.md rule 9: a message is sent only after its attempt is
/// recorded durably; an attempt whose outcome was never recorded still counts.
@Suite struct BoundedRetryTests {
    @Test func aMessageIsSentOnlyOnceItsAttemptIsOnDisk() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let now = Timestamp(secondsSinceEpoch: 1_800_000_000)
        let id = try outbox.enqueue(sampleMessage(0), now: now).id
        var seenBySender: [OutboxEntry] = []
        var markerAtSend = false
        let attempted = Timestamp.now()
        let reports = try outbox.flush(now: now) { claim in
            markerAtSend = FileManager.default.fileExists(atPath: outbox.directory + "/.attempt-" + claim.entry.id)
            // What any other process reads at this moment: the attempt already counts.
            seenBySender = try outbox.list()
            throw FakeSendError(kind: .transient)
        }
        #expect(markerAtSend)
        #expect(seenBySender.map(\.attempts) == [1])
        // Waiting its back-off from the attempt, which the listing dates by the attempt's
        // record (made after `attempted`; a file's times come from the kernel's coarse clock,
        // which may be a tick behind the one Timestamp.now() reads).
        let seen = try #require(seenBySender.first)
        let lastAttempt = try #require(seen.lastAttempt, "\(seen)")
        #expect(((attempted - 1)...Timestamp.now()).contains(lastAttempt), "\(lastAttempt), attempted at \(attempted)")
        #expect(seen.nextAttempt == lastAttempt + 60, "\(seen)")
        #expect(reports.map(\.outcome) == [.rescheduled])
        // Recorded: the metadata holds the attempt, once, and the marker is gone.
        let entry = try outbox.entry(id).entry
        #expect(entry.attempts == 1 && entry.nextAttempt == now + 60)
        #expect(entry.lastError == Failure(kind: .transient, message: "fake transient failure"))
        #expect(names(in: outbox.directory + "/" + id) == ["message.eml", "meta.json"])
    }

    /// A sender killed between its send and its record (here: a claim given up after
    /// `beginAttempt`, as a SIGKILL would): the attempt counts and the message waits its
    /// back-off; a flush the user runs takes it, and counts it once.
    @Test func anAttemptWhoseOutcomeWasNotRecordedCountsAndWaitsItsBackoff() throws {
        let sandbox = try Sandbox()
        let (outbox, id) = try outboxWithAnUnrecordedAttempt(sandbox)

        let entry = try outbox.entry(id).entry
        #expect(entry.attempts == 1)
        #expect(entry.nextAttempt >= Timestamp.now() + 59)
        #expect(entry.lastError?.message.contains("was not recorded") == true, "\(String(describing: entry.lastError))")
        var sent: [String] = []
        #expect(try outbox.due().isEmpty)
        #expect(try outbox.flush { sent.append($0.entry.id) }.isEmpty)
        #expect(sent.isEmpty, "sent again before its back-off")

        let reports = try outbox.flush(allQueued: true) { _ in throw FakeSendError(kind: .transient) }
        #expect(reports.map(\.outcome) == [.rescheduled])
        // The unrecorded attempt and this one, each counted once.
        #expect(try outbox.entry(id).entry.attempts == 2)
        #expect(names(in: outbox.directory + "/" + id) == ["message.eml", "meta.json"])
    }

    /// The record of an attempt at a message that was sent, left by a process killed
    /// before it deleted it, goes at the next listing; a live one stays.
    @Test func anAttemptRecordWithoutItsEntryIsDeletedByTheNextListing() throws {
        let sandbox = try Sandbox()
        let (outbox, id) = try outboxWithAnUnrecordedAttempt(sandbox)
        let orphan = outbox.directory + "/.attempt-20261129-000000-000000-0badf00d"
        #expect(FileManager.default.createFile(atPath: orphan, contents: nil))
        #expect(try outbox.list().map(\.id) == [id])
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(FileManager.default.fileExists(atPath: outbox.directory + "/.attempt-" + id))
    }

    @Test func aRetryAfterAnUnrecordedAttemptMakesTheMessageDueNow() throws {
        let sandbox = try Sandbox()
        let (outbox, id) = try outboxWithAnUnrecordedAttempt(sandbox)
        #expect(try outbox.due().isEmpty)
        try outbox.retry(id)
        #expect(try outbox.due().map(\.id) == [id])
        #expect(try outbox.entry(id).entry.attempts == 1)
    }
}

/// One queued message whose attempt began and was never recorded: its claim given up
/// after `beginAttempt`, as a SIGKILL of its sender would.
private func outboxWithAnUnrecordedAttempt(_ sandbox: Sandbox) throws -> (Outbox, String) {
    let outbox = sandboxOutbox(sandbox)
    let id = try outbox.enqueue(sampleMessage(0)).id
    let claim = try #require(try outbox.claim(id))
    try claim.beginAttempt()
    claim.release()
    return (outbox, id)
}

/// A flush the user runs takes every queued message, due or not.
@Suite struct FlushSelectionTests {
    @Test func aFlushOfAllQueuedSendsWhatIsNotDueYet() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let now = Timestamp(secondsSinceEpoch: 1_800_000_000)
        let waiting = try outbox.enqueue(sampleMessage(0), now: now, failedAttempt: Failure(kind: .transient, message: "451")).id
        let due = try outbox.enqueue(sampleMessage(1), now: now).id
        #expect(try outbox.selected(now: now).map(\.id) == [due])
        #expect(try outbox.selected(now: now, allQueued: true).map(\.id) == [waiting, due])
        var sent: [String] = []
        let reports = try outbox.flush(now: now, allQueued: true) { sent.append($0.entry.id) }
        #expect(reports.map(\.outcome) == [.sent, .sent])
        #expect(sent == [waiting, due])
        #expect(try outbox.list().isEmpty)
    }
}

/// What a killed flush took out is deleted by the next writer, at once;
/// what a living one is still deleting is left to it.
@Suite struct TrashTests {
    @Test func aKilledFlushLeavesNoTrashAfterTheNextRun() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        #expect(try run(tortureBinary, ["fill", outbox.directory, "200"]).status == 0)
        let queued = Set(try outbox.list().map(\.id))
        let log = sandbox.root.appendingPathComponent("deliveries").path
        let flusher = try start(tortureBinary, ["flush", outbox.directory, log, "2"])
        // Killed after some deliveries, before the first sync of removals (64): what it
        // took out is still waiting to be deleted.
        try waitUntil("the flush made 10 deliveries or ended", every: 0.000_5) { deliveries(log).count >= 10 || !flusher.isRunning }
        try #require(flusher.isRunning, "the flush ended before it could be killed")
        kill(flusher.pid, SIGKILL)
        _ = flusher.finish()
        let trash = outbox.directory + "/.trash"
        #expect(!names(in: trash).isEmpty, "the kill left nothing to clean up")

        // The next run that writes to the outbox (here: one that queues a message).
        #expect(try run(tortureBinary, ["fill", outbox.directory, "1"]).status == 0)
        #expect(names(in: trash).isEmpty)
        // The next listing deletes what it sent (a few dozen at a time: here, all).
        _ = try outbox.list()
        // Nothing else either, but the records of attempts the killed flush had begun.
        #expect(leftovers(in: outbox.directory).allSatisfy { $0 == ".trash" || $0.hasPrefix(".attempt-") }, "\(leftovers(in: outbox.directory))")
        // Nothing lost: what was not delivered is queued.
        #expect(queued.isSubset(of: Set(deliveries(log)).union(try outbox.list().map(\.id))))
    }

    /// A living flush's sent entries are its own to delete: a listing elsewhere leaves them;
    /// once the flush is gone (here: it ended without deleting them, as if killed), the
    /// next listing deletes them, the entry before its record.
    @Test func sentEntriesOfALivingFlushAreLeftAlone() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let id = try outbox.enqueue(sampleMessage(0)).id
        let claim = try #require(try outbox.claim(id))
        try OutboxClaim.beginAttempts([claim], now: .now())
        let trash = FlushTrash(outbox: outbox)
        let taken = try claim.markSentUnsynced(into: trash)
        #expect(try outbox.list().isEmpty, "a sent entry is listed")
        #expect(try outbox.claim(id) == nil, "a sent entry is claimed")
        #expect(FileManager.default.fileExists(atPath: taken.path), "deleted under its flush")
        trash.finish()
        _ = try outbox.list()
        #expect(!FileManager.default.fileExists(atPath: taken.path))
        #expect(leftovers(in: outbox.directory).allSatisfy { $0 == ".trash" }, "\(leftovers(in: outbox.directory))")
        #expect(names(in: outbox.directory + "/.trash").isEmpty)
    }

    /// A flush about to exit leaves deleting what it sent to `xargs rm` in the background,
    /// which deletes all of it, its list last; nothing of it stays.
    @Test func sentEntriesLeftToTheBackgroundAreDeletedThere() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        #expect(try run(tortureBinary, ["fill", outbox.directory, "20"]).status == 0)
        let trash = FlushTrash(outbox: outbox, inBackground: true)
        var taken: [TakenOut] = []
        for entry in try outbox.list() {
            let claim = try #require(try outbox.claim(entry.id))
            try OutboxClaim.beginAttempts([claim], now: .now())
            taken.append(try claim.markSentUnsynced(into: trash))
        }
        trash.add(taken)
        trash.finish()
        try waitUntil("the background removal emptied the outbox and its trash: \(leftovers(in: outbox.directory))") {
            leftovers(in: outbox.directory).allSatisfy { $0 == ".trash" } && names(in: outbox.directory + "/.trash").isEmpty
        }
        #expect(leftovers(in: outbox.directory).allSatisfy { $0 == ".trash" }, "\(leftovers(in: outbox.directory))")
        #expect(names(in: outbox.directory + "/.trash").isEmpty)
        #expect(taken.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
    }
}

/// `outbox watch` after flushes that failed as a whole.
@Suite struct FlushBackoffTests {
    @Test func failedFlushesBackOffExponentiallyUpToAnHourAndASuccessEndsIt() {
        let now = Timestamp(secondsSinceEpoch: 1_800_000_000)
        var backoff = FlushBackoff()
        #expect(backoff.allowsFlush(now: now))
        var waits: [Int64] = []
        for _ in 0..<9 {
            backoff.record(flushFailed: true, now: now)
            waits.append(backoff.secondsToWait(nextAttempt: now, now: now, longest: 100_000))
        }
        #expect(waits == [60, 120, 240, 480, 960, 1_920, 3_600, 3_600, 3_600])
        #expect(!backoff.allowsFlush(now: now + 3_599))
        #expect(backoff.allowsFlush(now: now + 3_600))
        // Never sleeps past `longest` (new messages are looked for), never less than 1 s.
        #expect(backoff.secondsToWait(nextAttempt: now, now: now, longest: 60) == 60)
        backoff.record(flushFailed: false, now: now)
        #expect(backoff.allowsFlush(now: now))
        #expect(backoff.secondsToWait(nextAttempt: now + 30, now: now, longest: 60) == 30)
        #expect(backoff.secondsToWait(nextAttempt: now - 30, now: now, longest: 60) == 1)
        #expect(backoff.secondsToWait(nextAttempt: nil, now: now, longest: 60) == 60)
    }
}
