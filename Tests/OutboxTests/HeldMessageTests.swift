import Foundation
import MailtoCore
@testable import Outbox
import Testing
import TestSupport

/// Undo send and Send Later as the outbox carries them (docs/outbox.md, "Held messages"):
/// a held entry is sent at its time and not before, by any flush; Undo takes it out under
/// its claim only while no attempt at it began, so nothing is sent after an Undo and
/// nothing Undo returns was sent.
@Suite struct HeldMessageTests {
    let now = Timestamp(secondsSinceEpoch: 1_800_000_000)

    @Test func heldMessageIsSentAtItsTimeAndNotBeforeNotEvenByAFlushOfEverything() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let later = try outbox.enqueue(sampleMessage(0), now: now, held: (.later, now + 3_600))
        let ordinary = try outbox.enqueue(sampleMessage(1), now: now, failedAttempt: Failure(kind: .transient, message: "x"))
        #expect(later.hold == .later && later.attempts == 0 && later.nextAttempt == now + 3_600)
        #expect(later.expires == now + 3_600 + outbox.policy.lifetime, "its lifetime starts at its time")

        var sent: [String] = []
        // `outbox flush` takes every queued message, due or not: not a held one.
        _ = try outbox.flush(now: now, allQueued: true) { sent.append($0.entry.id) }
        #expect(sent == [ordinary.id])
        _ = try outbox.flush(now: now + 3_599) { sent.append($0.entry.id) }
        #expect(sent == [ordinary.id], "one second early: still held")
        let reports = try outbox.flush(now: now + 3_600) { sent.append($0.entry.id) }
        #expect(reports.map(\.outcome) == [.sent])
        #expect(sent == [ordinary.id, later.id])
        #expect(try outbox.list().isEmpty)
    }

    @Test func heldEntryReadsBackWithItsHoldAndOrdinaryOnesWithoutTheKey() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let held = try outbox.enqueue(sampleMessage(0), now: now, held: (.undo, now + 5))
        let plain = try outbox.enqueue(sampleMessage(1), now: now)
        #expect(try outbox.entry(held.id).entry.hold == .undo)
        #expect(try outbox.entry(held.id).entry.isHeld(at: now + 4))
        #expect(try !outbox.entry(held.id).entry.isHeld(at: now + 5))
        let metadata = try String(contentsOfFile: outbox.directory + "/" + held.id + "/meta.json", encoding: .utf8)
        #expect(metadata.contains("\"hold\": \"undo\""), "\(metadata)")
        let plainMetadata = try String(contentsOfFile: outbox.directory + "/" + plain.id + "/meta.json", encoding: .utf8)
        #expect(!plainMetadata.contains("hold"), "\(plainMetadata)")
    }

    @Test func undoTakesTheHeldMessageOutAndNothingIsSentAfterIt() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let entry = try outbox.enqueue(sampleMessage(7), now: now, held: (.undo, now + 5))
        // Its time has even come: what counts is that no one tried it yet.
        let bytes = try outbox.undo(entry.id, now: now + 6)
        #expect(bytes == sampleMessage(7).bytes)
        #expect(try outbox.list().isEmpty)
        var sent = 0
        _ = try outbox.flush(now: now + 100_000, allQueued: true) { _ in sent += 1 }
        #expect(sent == 0)
        #expect(throws: OutboxError.self) { try outbox.undo(entry.id) }
    }

    @Test func undoIsRefusedWhileAnotherProcessHoldsTheClaimOrOnceAnAttemptBegan() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let entry = try outbox.enqueue(sampleMessage(0), now: now, held: (.undo, now + 5))
        let sender = try #require(try outbox.claim(entry.id))
        // A sender holds it (the sheet, at the end of the Undo time): Undo cannot have it.
        #expect(try outbox.claim(entry.id) == nil)
        try sender.beginAttempt(now: now + 5)
        // The sending process is killed here: its claim dies, its attempt record stays.
        sender.release()
        let error = #expect(throws: OutboxError.self) { try outbox.undo(entry.id, now: now + 6) }
        #expect(error?.description.contains("too late to undo") == true, "\(String(describing: error))")
        let after = try outbox.entry(entry.id).entry
        #expect(after.hold == nil && after.attempts == 1, "an ordinary queued message now, waiting its back-off")
    }

    @Test func retryOfAHeldMessageSendsItNow() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let entry = try outbox.enqueue(sampleMessage(0), now: now, held: (.later, now + 86_400))
        _ = try outbox.retry(entry.id, now: now)
        var sent: [String] = []
        _ = try outbox.flush(now: now) { sent.append($0.entry.id) }
        #expect(sent == [entry.id])
    }

    @Test func aClaimKeptByItsHolderSendsOnceAndAFlushMeanwhileLeavesIt() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let entry = try outbox.enqueue(sampleMessage(0), now: now, held: (.undo, now + 5))
        let kept = try #require(try outbox.claim(entry.id))
        var byFlush = 0
        _ = try outbox.flush(now: now + 10) { _ in byFlush += 1 }
        #expect(byFlush == 0, "the holder's to send")
        var byHolder = 0
        let report = outbox.send(kept, now: now + 5) { _ in byHolder += 1 }
        #expect(report.outcome == .sent && byHolder == 1)
        #expect(try outbox.list().isEmpty)
        #expect(names(in: outbox.directory).filter { $0.hasPrefix(".attempt-") }.isEmpty)
    }
}
