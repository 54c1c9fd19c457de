import Foundation
import MailtoCore
@testable import Outbox
import Testing
import TestSupport

@Suite struct OutboxStoreTests {
    @Test func enqueuedMessageIsStoredWholeWithPrivatePermissions() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let message = sampleMessage(7)
        let entry = try outbox.enqueue(message)

        #expect(try permissions(outbox.directory) == 0o700)
        let entryDirectory = outbox.directory + "/" + entry.id
        #expect(try permissions(entryDirectory) == 0o700)
        #expect(names(in: entryDirectory) == ["message.eml", "meta.json"])
        #expect(try permissions(entryDirectory + "/message.eml") == 0o600)
        #expect(try permissions(entryDirectory + "/meta.json") == 0o600)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: outbox.messagePath(entry.id)))) == message.bytes)
        // Nothing but the entry: no temporary names left.
        #expect(names(in: outbox.directory) == [entry.id])
    }

    @Test func metadataRoundTripsThroughTheFile() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let now = Timestamp(secondsSinceEpoch: 1_800_000_000)
        let queued = try outbox.enqueue(sampleMessage(1, subject: "=?UTF-8?Q?caf=C3=A9?="), now: now,
                                        failedAttempt: Failure(kind: .transient, message: "421 try later"))
        let (read, state) = try outbox.entry(queued.id)

        #expect(state == .queued)
        #expect(read == queued)
        #expect(read.attempts == 1)
        #expect(read.nextAttempt == now + 60)
        #expect(read.expires == now + 5 * 86_400)
        #expect(read.lastError == Failure(kind: .transient, message: "421 try later"))
        #expect(read.messageId == "<1@test.example>")
        #expect(read.subject == "café")
        #expect(read.recipients == ["joe@example.org"])
        #expect(read.envelopeFrom == "jane@example.org")
        #expect(read.server == "smtp.example.org:587")
        #expect(try outbox.message(queued.id) == sampleMessage(1, subject: "=?UTF-8?Q?caf=C3=A9?=").bytes)
    }

    @Test func listIsOldestFirstAndIdsSortByTime() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        var ids: [String] = []
        for index in 0..<5 {
            ids.append(try outbox.enqueue(sampleMessage(index)).id)
        }
        #expect(try outbox.list().map(\.id) == ids)
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == 5)
    }

    @Test func dueHoldsOnlyEntriesWhoseTimeHasCome() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let now = Timestamp(secondsSinceEpoch: 1_800_000_000)
        let fresh = try outbox.enqueue(sampleMessage(0), now: now)
        let retried = try outbox.enqueue(sampleMessage(1), now: now, failedAttempt: Failure(kind: .transient, message: "down"))

        #expect(try outbox.due(now: now).map(\.id) == [fresh.id])
        #expect(try outbox.due(now: now + 59).map(\.id) == [fresh.id])
        #expect(try outbox.due(now: now + 60).map(\.id) == [fresh.id, retried.id])
    }

    @Test func backOffDoublesFromOneMinuteToSixHours() {
        let policy = RetryPolicy.standard
        let delays = (1...12).map { policy.delay(afterAttempts: $0) }
        #expect(delays == [60, 120, 240, 480, 960, 1_920, 3_840, 7_680, 15_360, 21_600, 21_600, 21_600])
        #expect(policy.delay(afterAttempts: 0) == 0)
        #expect(policy.delay(afterAttempts: 1_000) == 6 * 3_600)
    }

    @Test func failedAttemptsRescheduleOnTheBackOffSchedule() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        var now = Timestamp(secondsSinceEpoch: 1_800_000_000)
        let id = try outbox.enqueue(sampleMessage(), now: now).id
        var waits: [Int64] = []
        for _ in 0..<11 {
            let outcome = try outbox.markAttempt(id, error: Failure(kind: .transient, message: "timeout"), now: now)
            guard case .rescheduled(let entry) = outcome else {
                Issue.record("moved to failed/ too early: \(outcome)")
                return
            }
            waits.append(entry.nextAttempt.secondsSinceEpoch - now.secondsSinceEpoch)
            now = entry.nextAttempt
        }
        #expect(waits == [60, 120, 240, 480, 960, 1_920, 3_840, 7_680, 15_360, 21_600, 21_600])
        #expect(try outbox.entry(id).entry.attempts == 11)
        #expect(try outbox.entry(id).entry.lastError?.message == "timeout")
    }

    @Test func aMessageStillFailingAfterFiveDaysMovesToFailed() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let created = Timestamp(secondsSinceEpoch: 1_800_000_000)
        let id = try outbox.enqueue(sampleMessage(), now: created).id

        let justBefore = try outbox.markAttempt(id, error: Failure(kind: .transient, message: "down"), now: created + 5 * 86_400 - 1)
        guard case .rescheduled = justBefore else {
            Issue.record("gave up before five days: \(justBefore)")
            return
        }
        let after = try outbox.markAttempt(id, error: Failure(kind: .transient, message: "still down"), now: created + 5 * 86_400)
        guard case .movedToFailed(let entry) = after else {
            Issue.record("still queued after five days: \(after)")
            return
        }
        #expect(entry.attempts == 2)
        #expect(try outbox.list().isEmpty)
        #expect(try outbox.failed().map(\.id) == [id])
        #expect(try outbox.entry(id).state == .failed)
        #expect(try outbox.due(now: created + 10 * 86_400).isEmpty)
        #expect(names(in: outbox.failedDirectory + "/" + id) == ["message.eml", "meta.json"])
    }

    @Test func aPermanentErrorMovesToFailedAtOnce() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let id = try outbox.enqueue(sampleMessage()).id
        let outcome = try outbox.markAttempt(id, error: Failure(kind: .permanent, message: "550 no such user"))
        guard case .movedToFailed = outcome else {
            Issue.record("a 5xx reply was rescheduled: \(outcome)")
            return
        }
        #expect(try outbox.failed().first?.lastError?.message == "550 no such user")
    }

    @Test func retryMakesAnEntryDueNowAndBringsFailedOnesBack() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let now = Timestamp(secondsSinceEpoch: 1_800_000_000)
        let waiting = try outbox.enqueue(sampleMessage(0), now: now, failedAttempt: Failure(kind: .transient, message: "x"))
        let failed = try outbox.enqueue(sampleMessage(1), now: now).id
        try outbox.markAttempt(failed, error: Failure(kind: .permanent, message: "550"), now: now)

        let later = now + 10
        #expect(try outbox.retry(waiting.id, now: later).nextAttempt == later)
        let back = try outbox.retry(failed, now: later)
        #expect(back.expires == later + 5 * 86_400)
        #expect(back.attempts == 1)
        #expect(try outbox.failed().isEmpty)
        #expect(Set(try outbox.due(now: later).map(\.id)) == [waiting.id, failed])
    }

    @Test func dropAndRemoveDeleteWholeEntriesAndUnknownIdsAreInputErrors() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let a = try outbox.enqueue(sampleMessage(0)).id
        let b = try outbox.enqueue(sampleMessage(1)).id
        try outbox.drop(a)
        try outbox.remove(b)
        #expect(try outbox.list().isEmpty)
        // Whole: nothing left but the (empty) place removals pass through.
        #expect(names(in: outbox.directory) == [".trash"])
        #expect(names(in: outbox.directory + "/.trash").isEmpty)

        for id in [a, "../../etc", "nope"] {
            #expect(throws: OutboxError.self) { try outbox.drop(id) }
            do {
                _ = try outbox.entry(id)
            } catch let error as OutboxError {
                #expect(error.kind == .input)
            }
        }
    }

    @Test func leftoversOfACrashAreNeverListed() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let kept = try outbox.enqueue(sampleMessage(0)).id
        // What a process killed half-way through enqueue or removal leaves.
        let fm = FileManager.default
        try fm.createDirectory(atPath: outbox.directory + "/.tmp-20261129-000000-000000-deadbeef", withIntermediateDirectories: false)
        try Data("half a mess".utf8).write(to: URL(fileURLWithPath: outbox.directory + "/.tmp-20261129-000000-000000-deadbeef/message.eml"))
        try fm.createDirectory(atPath: outbox.directory + "/.trash-20261129-000000-000000-0badf00d", withIntermediateDirectories: false)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: outbox.directory + "/.trash-20261129-000000-000000-0badf00d/meta.json"))

        #expect(try outbox.list().map(\.id) == [kept])
        // Young leftovers may be work still going on in another process: kept for now.
        #expect(names(in: outbox.directory).count == 3)
        // An hour later they are a crash's: cleaned up by the next listing. (A ctime
        // cannot be set back, so the threshold moves instead.)
        var later = outbox
        later.leftoverAge = -7_200
        #expect(try later.list().map(\.id) == [kept])
        #expect(names(in: outbox.directory) == [kept])
    }

    @Test func aClaimIsExclusiveAndEndsWithItsHolder() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let id = try outbox.enqueue(sampleMessage()).id
        var first = try outbox.claim(id)
        #expect(first != nil)
        // flock conflicts between two open file descriptions, also in one process.
        #expect(try outbox.claim(id) == nil)
        do {
            try outbox.drop(id)
            Issue.record("dropped an entry being sent")
        } catch let error as OutboxError {
            #expect(error.kind == .transient)
            #expect(error.description.contains("being sent"))
        }
        first = nil
        // Patience: a test running in parallel may fork while the lock was held.
        #expect(try outbox.claim(id, patience: 500) != nil)
        _ = first
    }

    @Test func aClaimOnARemovedEntryIsRefused() throws {
        let sandbox = try Sandbox()
        let outbox = sandboxOutbox(sandbox)
        let id = try outbox.enqueue(sampleMessage()).id
        let claim = try #require(try outbox.claim(id))
        try claim.markSent()
        #expect(try outbox.claim(id) == nil)
        #expect(throws: OutboxError.self) { try claim.markSent() }
    }

    @Test func timestampsAreISO8601UTC() throws {
        #expect(Timestamp(secondsSinceEpoch: 0).iso8601 == "1970-01-01T00:00:00Z")
        #expect(Timestamp(secondsSinceEpoch: 951_782_400).iso8601 == "2000-02-29T00:00:00Z")
        #expect(Timestamp(secondsSinceEpoch: 1_800_000_000).iso8601 == "2027-01-15T08:00:00Z")
        for seconds: Int64 in [0, 86_399, 951_782_400, 1_700_000_000, 4_102_444_800] {
            let stamp = Timestamp(secondsSinceEpoch: seconds)
            #expect(Timestamp(iso8601: stamp.iso8601) == stamp)
        }
        #expect(Timestamp(iso8601: "2026-13-01T00:00:00Z") == nil)
        #expect(Timestamp(iso8601: "2026-01-01 00:00:00") == nil)
        // The real-time clock Foundation reads: between two readings of it, whenever this runs.
        let before = Int64(Date().timeIntervalSince1970)
        let now = Timestamp.now().secondsSinceEpoch
        let after = Int64(Date().timeIntervalSince1970)
        #expect(before <= now && now <= after, "\(before) \(now) \(after)")
    }

    @Test func metadataParserReadsWhatTheWriterWrites() throws {
        let value = JSON.object([
            ("s", .string("quote \" backslash \\ newline \n tab \t nul \u{0} é 😀")),
            ("n", .int(-42)), ("b", .bool(true)), ("z", .null), ("a", .array([.int(1), .strings(["x"])])),
        ])
        #expect(JSONReader.parse(Array(value.serialized.utf8)) == value)
        #expect(JSONReader.parse(Array(#"{"a": "\ud83d\ude00"}"#.utf8)) == .object([("a", .string("😀"))]))
        for broken in ["", "{", #"{"a": }"#, #"{"a": 1,}"#, "[1 2]", #""\x""#, "1.", ".5", "1e", "1e+", "-", "{} x"] {
            #expect(JSONReader.parse(Array(broken.utf8)) == nil, "\(broken)")
        }
    }

    /// Chromium's Preferences hold fractions, exponents and numbers beyond an Int: read as
    /// `.number`, whole numbers that fit stay `.int` (what the outbox reads back).
    @Test func numbersWithAFractionAnExponentOrBeyondAnIntAreReadAsNumbers() {
        #expect(JSONReader.parse(Array("[7, -3, 1.5, -2.5e3, 1E2, 0.25e-1, 99999999999999999999]".utf8))
            == .array([.int(7), .int(-3), .number(1.5), .number(-2500), .number(100), .number(0.025), .number(1e20)]))
        #expect(JSON.array([.number(1.5), .number(1e20)]).serialized == "[1.5, 1e+20]")
        #expect(JSONReader.parse(Array("1.5".utf8))?.intValue == nil)
    }
}
