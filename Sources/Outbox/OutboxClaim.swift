#if canImport(Glibc)
import Glibc
#endif
public import MailtoCore

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
    /// `beginAttempt` recorded an attempt that `entry` counts and `meta.json` does not yet.
    private var attemptBegun = false
    /// What a sender calls before the server can accept the message (SMTPTransport's
    /// `RawMessage.beforeEnd`), set by a flush: it waits until the message sent before
    /// is out of the outbox, which happens meanwhile on another thread, so that a kill
    /// leaves at most one message sent and still queued. It throws when that message could
    /// not be taken out: this one must then not be accepted (the flush stops).
    public internal(set) var beforeAcceptance: (@Sendable () throws -> Void)?

    init(outbox: Outbox, entry: OutboxEntry, state: Outbox.State, lock: FileDescriptor) {
        self.outbox = outbox
        self.entry = entry
        heldWhenClaimed = entry.hold != nil
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

    /// The message, when a flush read it ahead (`readAhead`): a small one is read on the
    /// flush's recording thread while the message before is sent, so that the sending
    /// thread opens no file. `nil`: the sender reads `messagePath` itself.
    public private(set) var messageRead: [UInt8]?

    /// The most bytes of a message read ahead: a text message with a small attachment.
    static let readAheadLimit = 256 * 1024

    /// Reads the message into `messageRead` when it is small. A message that cannot be
    /// read now is left for the sender, which then says why.
    func readAhead() {
        guard entry.size <= Self.readAheadLimit, let file = try? openForReadingIfExists(messagePath) else { return }
        defer { try? file.close() }
        // A queued message is written once, whole: one read of the size fstat says.
        guard let size = try? Int(file.status().st_size), size <= Self.readAheadLimit,
              let bytes = try? file.read(count: size, at: 0), bytes.count == size
        else { return }
        messageRead = bytes
    }

    /// Records durably that an attempt begins (docs/design.md rule 9): a name
    /// `.attempt-<id>` in the outbox's directory (a hard link to the entry's message, made
    /// now: its change time is the attempt's), and that directory synced. A sender calls it
    /// before every send and sends nothing when it throws: the outbox could not account
    /// for what would come of the send. From here on the attempt counts, and waits its
    /// back-off, also if its outcome is never recorded (the process dies, the disk turns
    /// read-only). An earlier attempt whose outcome was not recorded is first written into
    /// the metadata, so that each record stands for one attempt.
    public func beginAttempt(now: Timestamp = .now()) throws {
        try OutboxClaim.beginAttempts([self], now: now)
    }

    /// `beginAttempt` for several claims on one outbox, with one sync for all of them: a
    /// flush records its next messages' attempts together, as the syncs, not the sending,
    /// would otherwise be most of its time. The same sync makes the removals made before
    /// it in the outbox's directory durable. When it throws, none of them has begun.
    static func beginAttempts(_ claims: [OutboxClaim], now: Timestamp) throws {
        guard let outbox = claims.first?.outbox else { return }
        var made: [OutboxClaim] = []
        do {
            for claim in claims {
                try claim.makeAttemptRecord()
                made.append(claim)
            }
            try syncDirectory(outbox.directory)
        } catch {
            // Best effort: a record left behind only makes its message wait its back-off.
            for claim in made { claim.removeAttemptRecord() }
            throw error
        }
        for claim in claims {
            claim.entry.countUnrecordedAttempt(at: now, policy: outbox.policy)
            claim.attemptBegun = true
        }
    }

    /// The attempt was recorded (`beginAttempts`) but is not made: the flush stopped
    /// first. Its record goes (when it can), and the claim with it.
    func abandonAttempt() {
        if attemptBegun { removeAttemptRecord() }
        release()
    }

    private func makeAttemptRecord() throws {
        guard !spent, !attemptBegun else {
            throw OutboxError(.permanent, tr("outbox claim on '%@' was already used", entry.id))
        }
        if entry.unrecordedAttempt { try writeMetadata(entry) }
        // A second name for the entry's message file, not a new file: a name in the
        // outbox's directory is all a record needs (its sync makes it durable), and
        // link(2) sets the time of the attempt as the file's change time. Making a new
        // inode cost 1.5 ms on the bench's disk; a link, 15 µs.
        let record = outbox.attemptMarker(entry.id)
        do {
            try makeLink(to: messagePath, at: record, operation: tr("cannot record the attempt in"))
        } catch let error as OutboxError where [EPERM, EOPNOTSUPP, EMLINK].contains(error.errno ?? 0) {
            // A file system without hard links (FAT, some network ones): an empty file.
            try openFile(record, O_WRONLY | O_CREAT | O_EXCL, operation: tr("cannot record the attempt in")).close()
        }
    }

    private func removeAttemptRecord() {
        try? removeFile(outbox.attemptMarker(entry.id))
    }

    /// The message was accepted by a server: the entry leaves the outbox for good.
    /// When this returns the removal is durable, so the message is never sent again.
    public func markSent() throws {
        try spend()
        let from = parentDirectory(of: path)
        let taken = try takeOut()
        try syncDirectory(from)
        // Past the commit point: what is left is invisible, and a crash here leaves it
        // unlocked in `.trash/`, for the next writer to delete.
        try? removeTree(taken.path)
    }

    /// `markSent` without the sync, for a flush: one rename in the outbox's directory, of
    /// the attempt's record to `.sent-<id>`, takes the entry out of every listing and
    /// claim at once (also for a process that kills this one; a rename of its directory to
    /// elsewhere cost twice as much, as it rewrites the directory's `..`), but a power cut
    /// before the caller syncs the directory may bring it back: a duplicate, never a loss.
    /// `flush` syncs once for a batch of messages, then has `trash` delete the returned
    /// entries. The claim's lock goes at once: the entry is at no path another claim takes.
    func markSentUnsynced(into trash: FlushTrash) throws -> TakenOut {
        try spend()
        try trash.start()
        let sent = outbox.sentRecord(entry.id)
        do {
            try renameFile(outbox.attemptMarker(entry.id), to: sent)
        } catch let error as OutboxError where error.errno == ENOENT {
            // No record of the attempt to rename (deleted by hand): a new name for the
            // message does as well.
            try makeLink(to: messagePath, at: sent)
        }
        attemptBegun = false
        try? lock.close()
        return TakenOut(path: path, sentRecord: sent, lock: nil)
    }

    /// Records a failed attempt. A permanent or input error, or a failure after the
    /// entry's lifetime, moves it to `failed/`; anything else reschedules it after the
    /// back-off (`RetryPolicy`). After `beginAttempt` the attempt is already counted.
    @discardableResult
    public func recordFailedAttempt(_ error: Failure, now: Timestamp = .now()) throws -> AttemptOutcome {
        try spend()
        var updated = entry
        updated.hold = nil
        if !attemptBegun {
            updated.attempts += 1
            updated.lastAttempt = now
            updated.nextAttempt = now + outbox.policy.delay(afterAttempts: updated.attempts)
        }
        updated.lastError = error
        try writeMetadata(updated)
        let givesUp = error.kind == .permanent || error.kind == .input || now >= updated.expires
        guard givesUp, state == .queued else { return .rescheduled(entry) }
        try move(to: .failed)
        return .movedToFailed(entry)
    }

    /// Due now; a failed entry goes back to the queue with a fresh lifetime.
    public func retryNow(now: Timestamp = .now()) throws -> OutboxEntry {
        try spend()
        var updated = entry
        updated.nextAttempt = now
        // "Send now" of a held message: the user's hand lets it go.
        updated.hold = nil
        if state == .failed { updated.expires = now + outbox.policy.lifetime }
        try writeMetadata(updated)
        if state == .failed { try move(to: .queued) }
        return entry
    }

    /// Deletes the entry unsent: as durably as `markSent`.
    public func discard() throws {
        try markSent()
    }

    /// Undo: a held message (Undo send, Send later) leaves the outbox unsent, as durably
    /// as `markSent`, and its bytes are returned for the caller to give back to the user.
    /// Only while no attempt at it began (this claim excludes every sender, and an attempt
    /// is recorded before any send: docs/design.md rule 9), so that a message Undo
    /// returns was never sent, and none is sent after it; otherwise it throws and the
    /// entry stays as it is. Its time may have come: what counts is that no one tried it.
    public func undo(now: Timestamp = .now()) throws -> [UInt8] {
        guard !spent, !attemptBegun else {
            throw OutboxError(.permanent, tr("outbox claim on '%@' was already used", entry.id))
        }
        guard entry.hold != nil, entry.attempts == 0, !entry.unrecordedAttempt, state == .queued else {
            throw OutboxError(.input, entry.attempts > 0 || entry.unrecordedAttempt
                ? tr("too late to undo '%@': sending it has begun", entry.id) : tr("too late to undo '%@': it was not held", entry.id))
        }
        let bytes = try readMessage()
        try markSent()
        return bytes
    }

    /// A held message whose send the person stopped (the sheet's Cancel during
    /// "Sending…") before the server had its end (SMTPTransport's `SendStop`): it leaves
    /// the outbox unsent, as durably as `markSent`, before the connection is dropped, so
    /// that nobody sends it later, also when this process dies right after. Only a held
    /// message, whose text the sheet that holds it still has; its attempt may have begun,
    /// since the server never had the end of it.
    public func withdrawStopped() throws {
        guard !spent else { throw OutboxError(.permanent, tr("outbox claim on '%@' was already used", entry.id)) }
        // (An attempt that began made it an ordinary queued message: `entry.hold` is gone.)
        guard heldWhenClaimed, state == .queued else {
            throw OutboxError(.input, tr("'%@' was not held: it is not taken back", entry.id))
        }
        try markSent()
        withdrawn = true
    }

    /// The entry was a held message (Undo send, Send later) when this claim was taken.
    private let heldWhenClaimed: Bool

    /// `withdrawStopped` was done: the entry is out of the outbox, unsent.
    public private(set) var withdrawn = false

    /// `withdrawStopped`, for `SendStop`'s `beforeStopping`. It runs on the sending thread,
    /// the one that uses this claim for the send (`Outbox.send`'s), never another.
    public var withdrawalOnStop: @Sendable () throws -> Void {
        let claim = SendingThreadClaim(claim: self)
        return { try claim.claim.withdrawStopped() }
    }

    /// Gives the claim up without changing anything.
    public func release() {
        spent = true
        try? lock.close()
    }

    // MARK: -

    private func spend() throws {
        guard !spent else {
            throw OutboxError(.permanent, tr("outbox claim on '%@' was already used", entry.id))
        }
        spent = true
    }

    /// Replaces `meta.json` with `updated` (tmp → fsync → rename → fsync of the directory),
    /// and with it the attempt record, which `updated` counts; `entry` becomes `updated`.
    private func writeMetadata(_ updated: OutboxEntry) throws {
        var stored = updated
        let hasMarker = stored.unrecordedAttempt || attemptBegun
        stored.unrecordedAttempt = false
        let temporary = path + "/.tmp-\(processID)-" + EntryID.randomSuffix()
        do {
            try writeNewFile(Array(stored.json.serialized.utf8), at: temporary)
            try renameFile(temporary, to: path + "/" + Outbox.metadataName)
        } catch {
            unlink(temporary)
            throw error
        }
        // After the rename: a crash in between counts the attempt twice (a longer wait),
        // never not at all.
        if hasMarker { try removeFile(outbox.attemptMarker(entry.id)) }
        attemptBegun = false
        try lock.sync()
        entry = stored
    }

    /// One rename takes the entry out of every listing, into `.trash/`; returns where it
    /// went, with this claim's lock, which keeps others from deleting it under its remover.
    private func takeOut() throws -> TakenOut {
        let trash = outbox.trashDirectory + "/" + entry.id + "-" + EntryID.randomSuffix()
        do {
            try renameFile(path, to: trash)
        } catch let error as OutboxError where error.errno == ENOENT {
            // No `.trash/` yet: a new outbox, or one an older version made.
            try makeDirectories(outbox.trashDirectory)
            try renameFile(path, to: trash)
        }
        // After the rename: a record left by a crash in between belongs to no entry, and
        // the next writer deletes it.
        if attemptBegun || entry.unrecordedAttempt { removeAttemptRecord() }
        return TakenOut(path: trash, sentRecord: nil, lock: lock)
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

/// A claim carried into a `@Sendable` closure that only its own sending thread calls
/// (`OutboxClaim.withdrawalOnStop`): hence unchecked.
private struct SendingThreadClaim: @unchecked Sendable {
    let claim: OutboxClaim
}
