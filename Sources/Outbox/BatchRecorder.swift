#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// The bookkeeping half of a flush, on a thread of its own: claims the next messages and
/// records their attempts (`OutboxClaim.beginAttempts`, one sync per batch) while the
/// flushing thread sends the batch before, so that a flush waits for the server and for
/// its files side by side rather than one after the other (each message's claim and
/// record cost about as much as its SMTP conversation on loopback).
///
/// One batch ahead at most: a flush that stops early (its `limit`, a file it cannot
/// write) has recorded at most one batch it does not try, and gives those records back
/// (`finish`). Batches grow 1, 2, 4… up to `Outbox.batchSize` (or what the process may
/// open: `claimBudget`), so that a quick flush of a few messages records no attempt it does
/// not make.
final class BatchRecorder: @unchecked Sendable {
    // @unchecked Sendable: `ready`, `done`, `stopping` and `removals` are read and written
    // inside `monitor` only; the other stored properties are the recording thread's alone
    // once it started (the flushing thread reads `outbox` and the claims handed over).

    /// What the recording thread hands over.
    enum Prepared {
        /// Claimed, their attempts recorded durably: to be sent, in order. `skipped`: the
        /// messages before them whose claim could not be taken. `durableRemovals`: how many
        /// removals the flushing thread had made (`removalMade`) when the sync that
        /// recorded these attempts began, which it made durable too.
        case batch([OutboxClaim], skipped: [FlushReport], durableRemovals: Int)
        /// The attempts could not be recorded, and were not (nothing of it is claimed now):
        /// the flush stops; `report` says why, `skipped` as above.
        case failed(FlushReport, skipped: [FlushReport])
    }

    private let outbox: Outbox
    private let candidates: [ListedEntry]
    private let wanted: (OutboxEntry) -> Bool
    private let limit: Int
    private let now: Timestamp
    private let monitor = Monitor()
    private var thread: WorkerThread?
    /// The most messages in one batch here: `Outbox.batchSize`, or fewer where the process
    /// may open fewer files than two batches of claims need (`claimBudget`).
    private let largestBatch = BatchRecorder.claimBudget()

    /// Guarded by `monitor`.
    private var ready: Prepared?
    private var done = false
    private var stopping = false
    private var removals = 0

    /// Starts recording, for at most `limit` messages of `candidates` that are still
    /// `wanted` once claimed. Without a thread of its own, each batch is recorded when
    /// asked for (`next`).
    init(outbox: Outbox, candidates: [ListedEntry], wanted: @escaping (OutboxEntry) -> Bool, limit: Int, now: Timestamp) {
        self.outbox = outbox
        self.candidates = candidates
        self.wanted = wanted
        self.limit = limit
        self.now = now
        thread = WorkerThread { self.run() }
    }

    /// The next batch, once recorded; `nil` when there is none.
    func next() -> Prepared? {
        if thread == nil { return prepareNext() }
        return monitor.locked {
            while ready == nil, !done { monitor.wait() }
            defer {
                ready = nil
                monitor.wake()
            }
            return ready
        }
    }

    /// The flushing thread took a sent message out of the outbox (`markSentUnsynced`),
    /// unsynced: the next batch's sync makes it durable.
    func removalMade() {
        monitor.locked { removals += 1 }
    }

    /// Ends the recording: waits for the thread, and gives back what it recorded and
    /// will not be sent (the flush stopped before).
    func finish() {
        monitor.end(&thread) { stopping = true }
        if case .batch(let claims, _, _)? = ready {
            for claim in claims { claim.abandonAttempt() }
        }
        ready = nil
    }

    /// How many claims one batch may hold. Each is an open descriptor, and two batches are
    /// open at once (the one being sent, the next one), beside the process's other files:
    /// a desktop session's limit is often 1,024 (systemd's soft default), which a flush of
    /// two batches of 1,024 ran out of ("Too many open files", and the flush stopped). So
    /// the soft limit is raised towards the hard one, as far as two full batches need (this
    /// process polls its descriptors, never `select`s them), and what it allows then sets
    /// the batch: a quarter of it, less a reserve.
    static func claimBudget() -> Int {
        let wanted = rlim_t(4 * Outbox.batchSize + reservedFiles)
        var limit = rlimit()
        guard getrlimit(resourceOpenFiles, &limit) == 0 else { return 64 }
        if limit.rlim_cur < wanted, limit.rlim_max > limit.rlim_cur {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, wanted)
            if setrlimit(resourceOpenFiles, &raised) == 0 { limit = raised }
        }
        let allowed = Int(clamping: limit.rlim_cur)
        return max(1, min(Outbox.batchSize, (allowed - reservedFiles) / 4))
    }

    /// Descriptors left for everything but the claims: libcurl's connection, the message
    /// being read, the outbox's directory, the trash's list, a password command's pipes.
    private static let reservedFiles = 128

    private static let resourceOpenFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

    // MARK: - The recording thread

    private var position = 0
    private var batchSize = 1
    /// Messages claimed or skipped so far: what counts against `limit`.
    private var taken = 0
    /// The removals the last sync made durable (`Prepared.batch`'s `durableRemovals`).
    private var synced = 0

    private func run() {
        while true {
            let go = monitor.locked {
                while ready != nil, !stopping { monitor.wait() }
                return !stopping
            }
            guard go, let prepared = prepareNext() else { break }
            monitor.locked {
                ready = prepared
                monitor.wake()
            }
            if case .failed = prepared { break }
        }
        monitor.locked {
            done = true
            monitor.wake()
        }
    }

    /// Claims the next batch and records its attempts; `nil` when nothing is left.
    private func prepareNext() -> Prepared? {
        var skipped: [FlushReport] = []
        var batch: [OutboxClaim] = []
        while batch.isEmpty, position < candidates.count, taken < limit {
            batch = claimBatch(of: min(batchSize, limit - taken), skipped: &skipped)
            taken += batch.count
        }
        batchSize = min(batchSize * 2, largestBatch)
        guard let first = batch.first else {
            // No sync was made: only the removals the last one covered are durable.
            return skipped.isEmpty ? nil : .batch([], skipped: skipped, durableRemovals: synced)
        }
        let durable = monitor.locked { removals }
        do {
            try OutboxClaim.beginAttempts(batch, now: now)
            synced = durable
        } catch {
            // Not sent: what would come of them could not be recorded.
            for claim in batch { claim.release() }
            var report = FlushReport(id: first.entry.id, outcome: .skipped, entry: first.entry, storeError: OutboxError(error))
            report.stoppedFlush = true
            return .failed(report, skipped: skipped)
        }
        return .batch(batch, skipped: skipped, durableRemovals: durable)
    }

    /// Claims up to `count` candidates from `position` on, and no more bytes than
    /// `Outbox.batchBytes` (one message at least). Entries another process holds are left
    /// to it; one that cannot be claimed is reported (and counts against the limit) and
    /// does not stop the others.
    private func claimBatch(of count: Int, skipped: inout [FlushReport]) -> [OutboxClaim] {
        var batch: [OutboxClaim] = []
        var bytes = 0
        while batch.count < count, taken + batch.count < limit, position < candidates.count,
              batch.isEmpty || bytes + candidates[position].entry.size <= Outbox.batchBytes {
            let candidate = candidates[position]
            position += 1
            do {
                guard let claim = try outbox.claim(candidate) else { continue }
                // Another flusher may have tried it (and rescheduled it) since the listing.
                guard wanted(claim.entry) else {
                    claim.release()
                    continue
                }
                claim.readAhead()
                batch.append(claim)
                bytes += claim.entry.size
            } catch {
                skipped.append(FlushReport(id: candidate.entry.id, outcome: .skipped, entry: candidate.entry, storeError: OutboxError(error)))
                taken += 1
            }
        }
        return batch
    }
}
