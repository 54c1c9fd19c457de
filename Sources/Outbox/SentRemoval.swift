/// Takes a flush's sent messages out of the outbox (`OutboxClaim.markSentUnsynced`: one
/// rename) on a thread of its own, one message at a time, while the flushing thread goes
/// on to the next message's envelope: on loopback the rename cost as much as all of a
/// message's own work in the flushing thread.
///
/// The next message is not accepted before the one before is out: its sender waits in
/// `waitUntilOut` before the end of its data (`OutboxClaim.beforeAcceptance`), so that a
/// process killed at any moment has at most one message both accepted by the server and
/// still queued, as when each was taken out before the next began.
///
/// The one owner of its thread; used by the flushing thread only.
final class SentRemoval: @unchecked Sendable {
    // @unchecked Sendable: `handed`, `outcome` and `stopping` are read and written inside
    // `monitor` only; `trash` is the flushing thread's, used here on the one claim handed.
    private let trash: FlushTrash
    private let monitor = Monitor()
    private var thread: WorkerThread?
    /// Guarded by `monitor`: the claim handed and not yet taken out.
    private var handed: OutboxClaim?
    /// Guarded by `monitor`: what came of the claim handed, until `collect`.
    private var outcome: Result<TakenOut, Error>?
    private var stopping = false

    init(trash: FlushTrash) {
        self.trash = trash
        thread = WorkerThread { self.run() }
    }

    /// Has the sent message under `claim` taken out of the outbox; the one handed before
    /// was collected. Without a thread, it is taken out here and now.
    func hand(_ claim: OutboxClaim) {
        guard thread != nil else {
            outcome = Result { try claim.markSentUnsynced(into: trash) }
            return
        }
        monitor.locked {
            handed = claim
            monitor.wake()
        }
    }

    /// Waits until the message handed is out of the outbox (at once when there is none);
    /// throws why it could not be taken out.
    func waitUntilOut() throws {
        try monitor.locked {
            while handed != nil { monitor.wait() }
            if case .failure(let error)? = outcome { throw error }
        }
    }

    /// What came of the message handed, once it is over; `nil` when none is.
    func collect() -> Result<TakenOut, Error>? {
        monitor.locked {
            while handed != nil { monitor.wait() }
            defer { outcome = nil }
            return outcome
        }
    }

    /// Ends the thread, once the message handed is out.
    func finish() {
        monitor.end(&thread) { stopping = true }
    }

    private func run() {
        while let claim = monitor.locked({ () -> OutboxClaim? in
            while handed == nil, !stopping { monitor.wait() }
            return handed
        }) {
            let result = Result { try claim.markSentUnsynced(into: trash) }
            monitor.locked {
                outcome = result
                handed = nil
                monitor.wake()
            }
        }
    }
}
