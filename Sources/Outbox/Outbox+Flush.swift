public import MailtoCore

/// What one message came to in a flush.
public struct FlushReport: Sendable {
    public enum Ending: String, Sendable {
        /// The sender returned: a server accepted it; it left the outbox.
        case sent
        /// The sender failed; it stays queued until `entry.nextAttempt`.
        case rescheduled
        /// The sender failed for good or its lifetime ended: it is in `failed/`.
        case failed
        /// Not tried: its claim could not be taken (`storeError` says why); still queued.
        case skipped
        /// The person stopped its send before the server had its end: it left the outbox
        /// unsent (`OutboxClaim.withdrawStopped`), its text back with them.
        case withdrawn
    }

    public var id: String
    public var outcome: Ending
    /// The entry after the attempt.
    public var entry: OutboxEntry
    /// Why the sender failed.
    public var error: Failure?
    /// The outbox could not record the attempt (then it was not made: `skipped`) or its
    /// outcome (a full disk, a read-only directory). After `sent` this means the message
    /// may be sent again later, once its back-off is over: a duplicate, never a loss.
    public var storeError: OutboxError?
    /// The flush stopped after this message (docs/design.md rule 9): the outbox could not
    /// record its attempt or the outcome; the messages after it were not tried.
    public var stoppedFlush = false

    /// When the outbox tries it again: after a failed attempt whose outcome was recorded.
    public var nextAttempt: Timestamp? {
        outcome == .rescheduled && storeError == nil ? entry.nextAttempt : nil
    }
}

extension FlushReport {
    /// Why a flush stopped before it was through: the outbox's error; `nil` when it went
    /// through everything it selected.
    public static func stoppingError(in reports: [FlushReport]) -> OutboxError? {
        reports.last(where: \.stoppedFlush)?.storeError
    }
}

extension Outbox {
    /// Sends every entry due at `now` (or every queued one: `allQueued`), oldest first, each
    /// under its claim, and reports per message; at most `limit` messages (a quick flush
    /// before the user's own message). Entries another process has claimed are left to it.
    /// Throws only when the outbox cannot be listed, or `prepare` throws; once sending has
    /// begun, every problem is in the reports.
    ///
    /// `prepare` is called once with the entries selected, when there are any, before any
    /// is claimed: a caller makes its connections ready there (an account, a password) and
    /// returns which of them it can send now (the others stay as they are); what it throws
    /// leaves every message untouched.
    ///
    /// `send` is called once per message, one at a time, so it may keep one server
    /// connection open across calls. It returns when a server accepted the message, and
    /// throws otherwise (a `ClassifiedError` says whether to retry: `transient` and
    /// `configuration` reschedule, `permanent` and `input` move the entry to `failed/`).
    /// It calls `claim.beforeAcceptance` before the server can accept the message (before
    /// the end of its data; SMTPTransport's `RawMessage.beforeEnd`), and sends no end when
    /// that throws: the message before is taken out of the outbox meanwhile, on a thread of
    /// its own (`SentRemoval`), and this is where the flush waits for it.
    ///
    /// docs/design.md rule 9: each message is sent only after its attempt is recorded durably
    /// (`OutboxClaim.beginAttempt`). When the outbox cannot record an attempt or its
    /// outcome, the flush stops there (that report has `stoppedFlush` and the outbox's
    /// error): nothing is sent again because a file could not be written.
    ///
    /// Attempts are recorded a batch at a time, with one sync, and that sync also makes the
    /// removals before it durable (`Outbox.batchSize`); the next batch is claimed and
    /// recorded on a thread of its own while this one is sent (`BatchRecorder`). A process
    /// killed at any moment leaves each message either sent and removed, or still queued;
    /// only the one being sent, or the one before it while this one has not reached its
    /// end, may be sent again (its removal had not happened yet: one message at most), after
    /// its back-off or by a flush that takes every queued message; the others whose
    /// attempts were recorded and not made (the rest of the batch, and the next one) wait
    /// their back-off too, unsent. A power cut during a flush may bring back messages
    /// already sent since the last sync, as duplicates, and never loses one.
    ///
    /// The files of sent messages are deleted on threads of their own meanwhile (`FlushTrash`);
    /// with `trashInBackground` (a process about to exit) what is left of them at the end is
    /// left to a background `rm` rather than waited for.
    ///
    /// `selecting`: which queued entries to send instead (one the user asked to retry).
    public func flush(
        now: Timestamp = .now(), limit: Int = .max, allQueued: Bool = false,
        selecting: ((OutboxEntry) -> Bool)? = nil, trashInBackground: Bool = false,
        prepare: (([OutboxEntry]) throws -> (OutboxEntry) -> Bool)? = nil, send: (OutboxClaim) throws -> Void
    ) throws -> [FlushReport] {
        let selected = Outbox.selection(now: now, allQueued: allQueued, selecting: selecting)
        removeDeadTrash()
        var candidates = try listed(.queued).filter { selected($0.entry) }
        guard !candidates.isEmpty else { return [] }
        let sendable = try prepare?(candidates.map(\.entry)) ?? { _ in true }
        candidates = candidates.filter { sendable($0.entry) }
        let wanted = { (entry: OutboxEntry) in selected(entry) && sendable(entry) }
        let trash = FlushTrash(outbox: self, inBackground: trashInBackground)
        defer { trash.finish() }
        let recorder = BatchRecorder(outbox: self, candidates: candidates, wanted: wanted, limit: limit, now: now)
        defer { recorder.finish() }
        let removal = SentRemoval(trash: trash)
        defer { removal.finish() }
        var reports: [FlushReport] = []
        /// Sent and taken out, in order: (report index, what to delete); those before
        /// `handedToTrash` were synced and given to `trash`.
        var removed: [(Int, TakenOut)] = []
        var handedToTrash = 0
        /// The report of the sent message `removal` is taking out.
        var beingRemoved: Int?
        /// Waits for the message being taken out, and counts it as removed; `false`: it
        /// could not be, and its report says so (the flush stops).
        func settleRemoval() -> Bool {
            guard let index = beingRemoved else { return true }
            beingRemoved = nil
            switch removal.collect() {
            case .success(let taken)?:
                removed.append((index, taken))
                recorder.removalMade()
            case .failure(let error)?:
                reports[index].storeError = OutboxError(error)
                reports[index].stoppedFlush = true
                return false
            case nil:
                break
            }
            return true
        }
        sending: while let prepared = recorder.next() {
            switch prepared {
            case .failed(let report, let skipped):
                reports += skipped
                reports.append(report)
                break sending
            case .batch(let batch, let skipped, let durableRemovals):
                reports += skipped
                // The sync that recorded these attempts made the removals before it durable.
                trash.add(removed[handedToTrash..<durableRemovals].map(\.1))
                handedToTrash = durableRemovals
                for (position, claim) in batch.enumerated() {
                    claim.beforeAcceptance = { try removal.waitUntilOut() }
                    var sendError: Error?
                    do { try send(claim) } catch { sendError = error }
                    guard settleRemoval() else {
                        // This one was not accepted (its sender waited for that removal,
                        // and was told to stop before its end), or, by a sender that did
                        // not wait, it was: then it is recorded as any sent message.
                        if sendError == nil {
                            var (report, taken) = recordSent(claim, trash: trash)
                            report.stoppedFlush = true
                            reports.append(report)
                            if let taken { removed.append((reports.count - 1, taken)) }
                        } else {
                            claim.abandonAttempt()
                        }
                        for unsent in batch[(position + 1)...] { unsent.abandonAttempt() }
                        break sending
                    }
                    if let sendError {
                        let report = recordFailure(claim, sendError, now: now)
                        reports.append(report)
                        if report.storeError != nil {
                            reports[reports.count - 1].stoppedFlush = true
                            for unsent in batch[(position + 1)...] { unsent.abandonAttempt() }
                            break sending
                        }
                    } else {
                        reports.append(FlushReport(id: claim.entry.id, outcome: .sent, entry: claim.entry))
                        beingRemoved = reports.count - 1
                        removal.hand(claim)
                    }
                }
            }
        }
        _ = settleRemoval()
        removal.finish()
        // Before the last sync: no attempt is recorded after it.
        recorder.finish()
        if !finishRemovals(Array(removed[handedToTrash...]), reports: &reports, trash: trash), !reports.isEmpty {
            reports[reports.count - 1].stoppedFlush = true
        }
        return reports
    }

    /// What a flush takes: what `selecting` picks; else every queued entry (`allQueued`: a
    /// flush the user runs, as `postqueue -f` and `msmtpq -r` do) but those the user holds
    /// (Undo send, Send later: their time is the user's word, not a back-off); else what is
    /// due at `now` (the back-off schedule, for `watch` and the quick flush). A held entry
    /// is due at its time.
    public static func selection(
        now: Timestamp, allQueued: Bool = false, selecting: ((OutboxEntry) -> Bool)? = nil
    ) -> (OutboxEntry) -> Bool {
        if let selecting { return { !$0.isHeld(at: now) && selecting($0) } }
        if allQueued { return { !$0.isHeld(at: now) } }
        return { $0.nextAttempt <= now }
    }

    /// Sends one entry under a claim its caller holds (a held message at the end of its
    /// Undo time, whose claim the sheet kept so that no one else sends it meanwhile), as
    /// `flush` sends each: its attempt recorded first (rule 9), its outcome after.
    public func send(_ claim: OutboxClaim, now: Timestamp = .now(), send: (OutboxClaim) throws -> Void) -> FlushReport {
        do {
            try OutboxClaim.beginAttempts([claim], now: now)
        } catch {
            claim.release()
            var report = FlushReport(id: claim.entry.id, outcome: .skipped, entry: claim.entry, storeError: OutboxError(error))
            report.stoppedFlush = true
            return report
        }
        let trash = FlushTrash(outbox: self)
        defer { trash.finish() }
        var reports = [FlushReport]()
        let (report, taken) = attempt(claim, now: now, trash: trash, send: send)
        reports.append(report)
        if let taken { _ = finishRemovals([(0, taken)], reports: &reports, trash: trash) }
        return reports[0]
    }

    /// The queued entries a flush with these arguments would take, oldest first.
    public func selected(
        now: Timestamp = .now(), allQueued: Bool = false, selecting: ((OutboxEntry) -> Bool)? = nil
    ) throws -> [OutboxEntry] {
        try list().filter(Outbox.selection(now: now, allQueued: allQueued, selecting: selecting))
    }

    /// The most attempts recorded, and removals made durable, with one sync. A sync costs
    /// milliseconds, about as much as sending twenty small messages on loopback: 1,024 make
    /// it about one per cent of a flush's time. A kill still repeats only the message in
    /// flight; the rest of its batch, recorded and not tried, waits one back-off (`outbox
    /// flush` sends it at once); a power cut may bring back up to this many sent messages,
    /// as duplicates.
    static let batchSize = 1024

    /// The most bytes of messages in one batch: a flush of large messages syncs more often,
    /// so that their removal, and the deletion of their files, is never long behind.
    static let batchBytes = 16 << 20

    /// Makes removals durable with one sync, then has what they left deleted. `false`:
    /// the sync failed, and each of those reports says so.
    private func finishRemovals(_ removed: [(Int, TakenOut)], reports: inout [FlushReport], trash: FlushTrash) -> Bool {
        guard !removed.isEmpty else { return true }
        var synced = true
        do {
            try syncDirectory(directory)
        } catch {
            for (index, _) in removed { reports[index].storeError = OutboxError(error) }
            synced = false
        }
        trash.add(removed.map(\.1))
        return synced
    }

    /// One message under its claim, its attempt recorded: send, then record what came of
    /// it. Returns what a sent message's entry was taken out to, to be synced and deleted.
    func attempt(
        _ claim: OutboxClaim, now: Timestamp, trash: FlushTrash, send: (OutboxClaim) throws -> Void
    ) -> (FlushReport, TakenOut?) {
        do {
            try send(claim)
        } catch {
            // Taken out by the sender before it stopped (a person's Stop): nothing to record.
            if claim.withdrawn { return (FlushReport(id: claim.entry.id, outcome: .withdrawn, entry: claim.entry), nil) }
            return (recordFailure(claim, error, now: now), nil)
        }
        return recordSent(claim, trash: trash)
    }

    /// Records that the sender failed with `error`: the entry is rescheduled or moved to
    /// `failed/`.
    private func recordFailure(_ claim: OutboxClaim, _ error: Error, now: Timestamp) -> FlushReport {
        let id = claim.entry.id
        let attemptError = Failure(attempt: error)
        do {
            switch try claim.recordFailedAttempt(attemptError, now: now) {
            case .rescheduled(let entry):
                return FlushReport(id: id, outcome: .rescheduled, entry: entry, error: attemptError)
            case .movedToFailed(let entry):
                return FlushReport(id: id, outcome: .failed, entry: entry, error: attemptError)
            }
        } catch {
            // The attempt is counted all the same (its `.attempt-` record): it waits its back-off.
            return FlushReport(id: id, outcome: .rescheduled, entry: claim.entry, error: attemptError, storeError: OutboxError(error))
        }
    }

    /// Takes a sent message out of the outbox, here and now.
    private func recordSent(_ claim: OutboxClaim, trash: FlushTrash) -> (FlushReport, TakenOut?) {
        let id = claim.entry.id
        do {
            let taken = try claim.markSentUnsynced(into: trash)
            return (FlushReport(id: id, outcome: .sent, entry: claim.entry), taken)
        } catch {
            return (FlushReport(id: id, outcome: .sent, entry: claim.entry, storeError: OutboxError(error)), nil)
        }
    }
}
