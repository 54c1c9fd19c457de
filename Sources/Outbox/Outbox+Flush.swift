/// What one message came to in a flush.
public struct FlushReport: Sendable {
    public enum Outcome: String, Sendable {
        /// The sender returned: a server accepted it; it left the outbox.
        case sent
        /// The sender failed; it stays queued until `entry.nextAttempt`.
        case rescheduled
        /// The sender failed for good or its lifetime ended: it is in `failed/`.
        case failed
        /// Not tried: its claim could not be taken (`storeError` says why); still queued.
        case skipped
    }

    public var id: String
    public var outcome: Outcome
    /// The entry after the attempt.
    public var entry: OutboxEntry
    /// Why the sender failed.
    public var error: AttemptError?
    /// The outbox could not record the outcome (a full disk, a read-only directory). After
    /// `sent` this means the message may be sent again later: a duplicate, never a loss.
    public var storeError: OutboxError?
}

extension Outbox {
    /// Sends every entry due at `now`, oldest first, each under its claim, and reports
    /// per message; at most `limit` messages (a quick flush before the user's own message).
    /// Entries another process has claimed are left to it. Throws only when the outbox
    /// cannot be listed; once sending has begun, every problem is in the reports.
    ///
    /// `send` is called once per message, one at a time, so it may keep one server
    /// connection open across calls. It returns when a server accepted the message, and
    /// throws otherwise (a `ClassifiedError` says whether to retry: `transient` and
    /// `configuration` reschedule, `permanent` and `input` move the entry to `failed/`).
    ///
    /// A process killed at any moment leaves each message either sent and removed, or
    /// still queued; only the one being sent may be sent again (its removal had not
    /// happened yet). The removals are synced once, at the end, rather than once per
    /// message (1,000 directory syncs cost more than the sending): a power cut during a
    /// flush may bring back messages already sent, as duplicates, and never loses one.
    ///
    /// `selecting`: which queued entries to send instead of those due at `now` (one the
    /// user asked to retry; all of them when the network came back).
    public func flush(
        now: Timestamp = .now(), limit: Int = .max, selecting: ((OutboxEntry) -> Bool)? = nil,
        send: (OutboxClaim) throws -> Void
    ) throws -> [FlushReport] {
        let wanted = selecting ?? { $0.nextAttempt <= now }
        let remover = TrashRemover()
        defer { remover.finish() }
        var reports: [FlushReport] = []
        /// Sent and taken out, not yet synced: (report index, directory to delete).
        var removed: [(Int, String)] = []
        for candidate in try list() where wanted(candidate) {
            guard reports.count < limit else { break }
            let claimed: OutboxClaim?
            do {
                claimed = try claim(candidate.id)
            } catch {
                // One unreadable entry does not stop the others, nor hide what was sent.
                reports.append(FlushReport(id: candidate.id, outcome: .skipped, entry: candidate, storeError: OutboxError(error)))
                continue
            }
            guard let claim = claimed else { continue }
            // Another flusher may have tried it (and rescheduled it) since the listing.
            guard wanted(claim.entry) else {
                claim.release()
                continue
            }
            let (report, trash) = attempt(claim, now: now, send: send)
            reports.append(report)
            if let trash { removed.append((reports.count - 1, trash)) }
            if removed.count >= Outbox.removalsPerSync {
                finishRemovals(removed, reports: &reports, remover: remover)
                removed = []
            }
        }
        finishRemovals(removed, reports: &reports, remover: remover)
        return reports
    }

    /// Removals synced together: few enough that a flush of large messages does not hold
    /// their disk space long.
    static let removalsPerSync = 64

    /// Makes removals durable with one sync, then has what they left deleted.
    private func finishRemovals(_ removed: [(Int, String)], reports: inout [FlushReport], remover: TrashRemover) {
        guard !removed.isEmpty else { return }
        do {
            try syncDirectory(directory)
        } catch {
            for (index, _) in removed { reports[index].storeError = OutboxError(error) }
        }
        remover.add(removed.map(\.1))
    }

    /// One message under its claim: send, then record what came of it. Returns the
    /// directory a sent message's entry was moved to, to be synced and deleted.
    func attempt(_ claim: OutboxClaim, now: Timestamp, send: (OutboxClaim) throws -> Void) -> (FlushReport, String?) {
        let id = claim.entry.id
        do {
            try send(claim)
        } catch {
            let attemptError = AttemptError(attempt: error)
            do {
                switch try claim.recordFailedAttempt(attemptError, now: now) {
                case .rescheduled(let entry):
                    return (FlushReport(id: id, outcome: .rescheduled, entry: entry, error: attemptError), nil)
                case .movedToFailed(let entry):
                    return (FlushReport(id: id, outcome: .failed, entry: entry, error: attemptError), nil)
                }
            } catch {
                return (FlushReport(id: id, outcome: .rescheduled, entry: claim.entry, error: attemptError, storeError: OutboxError(error)), nil)
            }
        }
        do {
            let trash = try claim.markSentUnsynced()
            return (FlushReport(id: id, outcome: .sent, entry: claim.entry), trash)
        } catch {
            return (FlushReport(id: id, outcome: .sent, entry: claim.entry, storeError: OutboxError(error)), nil)
        }
    }
}
