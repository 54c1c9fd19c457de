#if canImport(Glibc)
import Glibc
#endif

/// The exclusive right to work on one outbox entry: an open descriptor of the entry's
/// directory holding `flock(LOCK_EX)`. Only the holder sends, reschedules, moves or
/// removes the entry. Released (and the lock with it) when this object is released;
/// the kernel releases it when the process dies.
///
/// After `markSent`, `recordFailedAttempt`, `retryNow` or `discard` the claim is spent.
public final class OutboxClaim {
    public let outbox: Outbox
    /// The entry as read after the lock was taken.
    public private(set) var entry: OutboxEntry
    public private(set) var state: Outbox.State
    private let lock: FileDescriptor
    private var spent = false

    init(outbox: Outbox, entry: OutboxEntry, state: Outbox.State, lock: FileDescriptor) {
        self.outbox = outbox
        self.entry = entry
        self.state = state
        self.lock = lock
    }

    private var path: String { outbox.entryDirectory(entry.id, state) }

    /// The message file, for a sender that streams it (a 100 MB attachment need not be
    /// read into memory).
    public var messagePath: String { outbox.messagePath(entry.id, state: state) }

    /// The whole message.
    public func readMessage() throws -> [UInt8] {
        try openFile(messagePath, O_RDONLY).readAll()
    }

    /// The message was accepted by a server: the entry leaves the outbox for good.
    /// When this returns the removal is durable, so the message is never sent again.
    public func markSent() throws {
        try spend()
        let trash = try takeOut()
        try syncDirectory(parentDirectory(of: trash))
        // Past the commit point: what is left is invisible, and a crash here leaves it to
        // the clean-up of old leftovers.
        try? removeTree(trash)
    }

    /// `markSent` without the sync: the entry is out of every listing at once (also for
    /// a process that kills this one), but a power cut before the caller syncs the
    /// directory may bring it back: a duplicate, never a loss. `flush` syncs once for
    /// all its messages, then deletes the returned directories.
    func markSentUnsynced() throws -> String {
        try spend()
        return try takeOut()
    }

    /// Records a failed attempt. A permanent or input error, or a failure after the
    /// entry's lifetime, moves it to `failed/`; anything else reschedules it after the
    /// back-off (`RetryPolicy`).
    @discardableResult
    public func recordFailedAttempt(_ error: AttemptError, now: Timestamp = .now()) throws -> AttemptOutcome {
        try spend()
        var updated = entry
        updated.attempts += 1
        updated.lastAttempt = now
        updated.lastError = error
        updated.nextAttempt = now + outbox.policy.delay(afterAttempts: updated.attempts)
        try writeMetadata(updated)
        entry = updated
        let givesUp = error.kind == .permanent || error.kind == .input || now >= updated.expires
        guard givesUp, state == .queued else { return .rescheduled(updated) }
        try move(to: .failed)
        return .movedToFailed(updated)
    }

    /// Due now; a failed entry goes back to the queue with a fresh lifetime.
    public func retryNow(now: Timestamp = .now()) throws -> OutboxEntry {
        try spend()
        var updated = entry
        updated.nextAttempt = now
        if state == .failed { updated.expires = now + outbox.policy.lifetime }
        try writeMetadata(updated)
        entry = updated
        if state == .failed { try move(to: .queued) }
        return updated
    }

    /// Deletes the entry unsent: as durably as `markSent`.
    public func discard() throws {
        try markSent()
    }

    /// Gives the claim up without changing anything.
    public func release() {
        spent = true
        try? lock.close()
    }

    // MARK: -

    private func spend() throws {
        guard !spent else {
            throw OutboxError(.permanent, "outbox claim on '\(entry.id)' was already used")
        }
        spent = true
    }

    private func writeMetadata(_ entry: OutboxEntry) throws {
        try writeFileAtomically(Array(entry.json.serialized.utf8), to: path + "/" + Outbox.metadataName)
    }

    /// One rename takes the entry out of every listing; returns where it went.
    private func takeOut() throws -> String {
        let trash = parentDirectory(of: path) + "/.trash-" + entry.id
        try renameFile(path, to: trash)
        return trash
    }

    private func move(to newState: Outbox.State) throws {
        let from = path
        let fromBase = parentDirectory(of: from)
        if newState == .failed { try makeDirectories(outbox.failedDirectory) }
        state = newState
        try renameFile(from, to: path)
        try syncDirectory(parentDirectory(of: path))
        try syncDirectory(fromBase)
    }
}
