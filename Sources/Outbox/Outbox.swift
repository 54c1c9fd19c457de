#if canImport(Glibc)
import Glibc
#endif
import MailtoCore
import MIMEMessage

/// The durable outbox (docs/design.md, Files): messages a server did not take yet,
/// one directory per message, retried with back-off until sent or given up on.
///
/// Layout of `directory` (created 0700; files 0600):
///
///     <id>/message.eml    the message, never rewritten
///     <id>/meta.json      its metadata (`OutboxEntry`), replaced atomically
///     .attempt-<id>       an attempt at <id> began and its outcome is not recorded yet
///                         (a hard link to <id>/message.eml; its change time says when):
///                         made before each send, beside the entries, so that one sync
///                         of this directory records a batch of them and the removals
///                         before them
///     .sent-<id>          <id> was sent by a flush (its attempt record, renamed): out of
///                         the outbox, its directory to be deleted, then this record
///     failed/<id>/        messages given up on, kept for the user
///     .tmp-<id>/          an entry being queued (or left by a crash: never listed)
///     .trash/<id>-<rnd>/  an entry taken out, being deleted; locked by its remover, so
///                         that one whose remover died is deleted by the next writer
///     .trash/flush-<pid>-<rnd>  the list of what a flush sent, locked while its entries
///                         are being deleted (`FlushTrash`)
///
/// An entry appears and disappears with one `rename(2)` of its directory, synced, so a
/// reader sees a whole entry or none, whatever happens half-way. A process works on an
/// entry only while it holds an exclusive `flock` on the entry's directory (an
/// `OutboxClaim`): two flushers never send the same message, and a claim dies with its
/// process, also under SIGKILL.
///
/// docs/design.md rule 9 (bounded retries): a message is sent only after its claim is
/// recorded durably (`OutboxClaim.beginAttempt`), so an attempt whose outcome could not be
/// written still counts and still waits its back-off; when the claim cannot be recorded,
/// nothing is sent.
public struct Outbox: Sendable {
    public let directory: String
    public var policy: RetryPolicy
    /// A crashed enqueue's or removal's leftovers are removed after this many seconds;
    /// the work that makes them takes seconds.
    var leftoverAge: Int64 = 3_600

    /// Where an entry is: still queued, or given up on.
    public enum State: String, Sendable {
        case queued
        case failed
    }

    static let messageName = "message.eml"
    static let metadataName = "meta.json"
    static let attemptPrefix = ".attempt-"
    static let sentPrefix = ".sent-"
    static let trashName = ".trash"

    public init(directory: String, policy: RetryPolicy = .standard) {
        self.directory = directory
        self.policy = policy
    }

    public var failedDirectory: String { directory + "/failed" }

    /// Where entries taken out of the outbox (sent, dropped) wait to be deleted.
    var trashDirectory: String { directory + "/" + Outbox.trashName }

    /// The record that an attempt at `id` began and its outcome is not recorded yet.
    func attemptMarker(_ id: String) -> String { directory + "/" + Outbox.attemptPrefix + id }

    /// The record that the message of `id` was sent (its attempt's record, renamed): the
    /// entry is out of the outbox, and left to be deleted (`FlushTrash`).
    func sentRecord(_ id: String) -> String { directory + "/" + Outbox.sentPrefix + id }

    /// When the attempt a record stands for began: the record's change time (a link sets
    /// it; an empty file, as versions before made, was made then).
    static func attemptTime(_ record: stat) -> Timestamp {
        Timestamp(secondsSinceEpoch: Int64(record.st_ctim.tv_sec))
    }

    func entryDirectory(_ id: String, _ state: State) -> String {
        (state == .queued ? directory : failedDirectory) + "/" + id
    }

    /// The message file of an entry, for a sender that streams it.
    public func messagePath(_ id: String, state: State = .queued) -> String {
        entryDirectory(id, state) + "/" + Outbox.messageName
    }

    // MARK: - Queueing

    /// Queues a message durably: when this returns, the message survives a crash or a
    /// power cut; when it throws, nothing was queued and nothing half-written is visible.
    ///
    /// `failedAttempt`: the router already tried once and failed (the usual way a message
    /// arrives here); the entry then counts one attempt and waits the first back-off.
    /// `held`: the user asked that it wait until `until` before its first attempt (Undo
    /// send, Send later); nothing sends it earlier, and its lifetime starts then.
    /// `state`: `.failed` keeps it in `failed/` at once (a copy refused for good that has
    /// nowhere else to go), where only `outbox retry` sends it.
    @discardableResult
    public func enqueue(
        _ message: OutboxMessage, now: Timestamp = .now(), failedAttempt: Failure? = nil,
        held: (hold: Hold, until: Timestamp)? = nil, state: State = .queued
    ) throws -> OutboxEntry {
        try makeDirectories(directory)
        let parent = state == .queued ? directory : failedDirectory
        if state != .queued { try makeDirectories(parent) }
        removeDeadTrash()
        let headers = HeaderSection(message.bytes.prefix(65_536))
        let attempts = failedAttempt == nil ? 0 : 1
        var entry = OutboxEntry(
            id: EntryID.make(), created: now, expires: now + policy.lifetime, attempts: attempts,
            nextAttempt: now + policy.delay(afterAttempts: attempts),
            lastAttempt: failedAttempt == nil ? nil : now, lastError: failedAttempt,
            messageId: message.messageId ?? headers["message-id"],
            envelopeFrom: message.envelopeFrom, recipients: message.recipients,
            server: message.server, subject: message.subject ?? headers.decoded("subject"),
            account: message.account, size: message.bytes.count
        )
        if let held {
            entry.hold = held.hold
            entry.nextAttempt = held.until
            entry.expires = max(now, held.until) + policy.lifetime
        }
        while true {
            let temporary = directory + "/.tmp-" + entry.id
            do {
                _ = try makeDirectory(temporary)
                try writeNewFile(message.bytes, at: temporary + "/" + Outbox.messageName)
                try writeNewFile(Array(entry.json.serialized.utf8), at: temporary + "/" + Outbox.metadataName)
                try syncDirectory(temporary)
                // The commit point: the entry appears whole.
                if rename(temporary, entryDirectory(entry.id, state)) != 0 {
                    let code = errno
                    if code == EEXIST || code == ENOTEMPTY {
                        // Another process made the same id in the same millisecond.
                        try? removeTree(temporary)
                        entry.id = EntryID.make()
                        continue
                    }
                    throw OutboxError.system(tr("cannot queue"), path: entryDirectory(entry.id, state), errno: code)
                }
            } catch {
                try? removeTree(temporary)
                throw error
            }
            // The directory that gained the entry, and the one it left.
            try syncDirectory(parent)
            if parent != directory { try syncDirectory(directory) }
            return entry
        }
    }

    // MARK: - Reading

    /// The queued entries, oldest first.
    public func list() throws -> [OutboxEntry] {
        try entries(.queued)
    }

    /// The entries given up on (in `failed/`), oldest first.
    public func failed() throws -> [OutboxEntry] {
        try entries(.failed)
    }

    /// The queued entries whose next attempt is due at `now`, oldest first.
    public func due(now: Timestamp = .now()) throws -> [OutboxEntry] {
        try list().filter { $0.nextAttempt <= now }
    }

    /// One entry, queued or failed. Throws an `.input` error for an unknown id.
    public func entry(_ id: String) throws -> (entry: OutboxEntry, state: State) {
        try Outbox.validate(id)
        for state in [State.queued, .failed] {
            if let entry = try readEntry(id, state) { return (entry, state) }
        }
        throw OutboxError(.input, tr("no outbox entry '%@'", id))
    }

    /// The message of an entry, as queued.
    public func message(_ id: String) throws -> [UInt8] {
        let (_, state) = try entry(id)
        guard let bytes = try readFileIfExists(messagePath(id, state: state)) else {
            throw OutboxError(.input, tr("no outbox entry '%@'", id))
        }
        return bytes
    }

    /// Entries whose metadata cannot be read (damaged by hand or by a failing disk: this
    /// module only ever replaces it whole). They are never sent (their envelope is not
    /// known) and never deleted: `outbox list` names them so that the user can look.
    public func damaged() throws -> [(id: String, error: OutboxError)] {
        var result: [(id: String, error: OutboxError)] = []
        for state in [State.queued, .failed] {
            try scan(state) { id, _ in
                do {
                    _ = try readEntry(id, state)
                } catch let error as OutboxError where error.kind == .permanent {
                    result.append((id, error))
                }
            }
        }
        return result
    }

    func entries(_ state: State) throws -> [OutboxEntry] {
        try listed(state).map(\.entry)
    }

    /// The entries in `state`, oldest first, each with what its files were when read.
    /// A large outbox is read on several threads (`concurrentMap`): each entry costs a
    /// few file operations and a parse, and a flush sends nothing before its listing is
    /// over (10,000 entries took a quarter of a second on one thread).
    func listed(_ state: State) throws -> [ListedEntry] {
        let ids = try scannedIDs(state)
        let read = concurrentMap(ids.count, leastPerThread: 256) { index in
            Result { try self.readListedEntry(ids[index].id, state, hasRecord: ids[index].hasRecord) }
        }
        var result: [ListedEntry] = []
        result.reserveCapacity(read.count)
        for outcome in read {
            do {
                // An entry removed or moved by another process since the listing is skipped.
                if let entry = try outcome.get() { result.append(entry) }
            } catch let error as OutboxError where error.kind == .permanent {
                // Damaged: listed by `damaged()`, not allowed to block the others.
            }
        }
        return result
    }

    /// Calls `body` with each entry id in `state`, oldest first, and whether the listing
    /// saw an attempt record for it.
    private func scan(_ state: State, _ body: (String, Bool) throws -> Void) throws {
        for (id, hasRecord) in try scannedIDs(state) { try body(id, hasRecord) }
    }

    /// Each entry id in `state`, oldest first, and whether the listing saw an attempt
    /// record for it.
    private func scannedIDs(_ state: State) throws -> [(id: String, hasRecord: Bool)] {
        let base = state == .queued ? directory : failedDirectory
        var records = Set<String>()
        var sent = Set<String>()
        var ids: [String] = []
        for name in try directoryNames(base) {
            if name.hasPrefix(Outbox.sentPrefix) {
                sent.insert(String(name.dropFirst(Outbox.sentPrefix.count)))
                continue
            }
            if name.hasPrefix(Outbox.attemptPrefix) {
                let id = String(name.dropFirst(Outbox.attemptPrefix.count))
                if !removeAttemptRecordIfOrphaned(id) { records.insert(id) }
                continue
            }
            if name.hasPrefix(".") {
                if name != Outbox.trashName { removeLeftover(base + "/" + name) }
                continue
            }
            guard EntryID.isValid(name), name != "failed" else { continue }
            ids.append(name)
        }
        if !sent.isEmpty { collectSent(sent) }
        return ids.sorted().filter { !sent.contains($0) }.map { ($0, records.contains($0)) }
    }

    /// Deletes a few of the entries that were sent (`.sent-<id>`) when no flush is deleting
    /// its own: those a flush left when it was killed, or whose deleting `rm` was. A few
    /// per listing, each a few milliseconds: a listing stays quick, and they go soon.
    private func collectSent(_ sent: Set<String>) {
        guard !FlushTrash.anyAlive(in: self) else { return }
        for id in sent.sorted().prefix(Outbox.sentCollectedPerListing) where EntryID.isValid(id) {
            TakenOut(path: entryDirectory(id, .queued), sentRecord: sentRecord(id), lock: nil).delete()
        }
    }

    static let sentCollectedPerListing = 64

    /// An entry as its files say, counting an attempt whose outcome was not recorded.
    func readEntry(_ id: String, _ state: State) throws -> OutboxEntry? {
        try readListedEntry(id, state, hasRecord: nil)?.entry
    }

    /// `readEntry`, with what its files were. `hasRecord`: whether a directory listing
    /// just saw its attempt record (`nil`: look). One seen later is found by the claim,
    /// which looks again once it holds the lock.
    func readListedEntry(_ id: String, _ state: State, hasRecord: Bool?) throws -> ListedEntry? {
        // Sent (its directory not deleted yet): gone. A listing has left it out already.
        if hasRecord == nil, state == .queued, try fileStatus(sentRecord(id)) != nil { return nil }
        let path = entryDirectory(id, state) + "/" + Outbox.metadataName
        guard let file = try openForReadingIfExists(path) else { return nil }
        let status = try file.status()
        // Replaced whole, never written in place, and small: one read of the size fstat
        // says (a listing of a thousand entries read each through a 64 KiB buffer).
        let size = Int(status.st_size)
        let bytes = size > 0 && size <= 65_536 ? try file.read(count: size, at: 0) : try file.readAll(limit: 1 << 20)
        try file.close()
        guard let json = JSONReader.parse(bytes), var entry = OutboxEntry(json: json) else {
            throw OutboxError(.permanent, tr("damaged outbox metadata in"), path: path)
        }
        var record: FileIdentity?
        if hasRecord != false, let recordStatus = try fileStatus(attemptMarker(id)) {
            record = FileIdentity(recordStatus)
            entry.countUnrecordedAttempt(at: Outbox.attemptTime(recordStatus), policy: policy)
        }
        return ListedEntry(entry: entry, metadata: FileIdentity(status), record: record)
    }

    /// Removes what a crashed enqueue left behind (and the `.trash-<id>` of versions before
    /// `.trash/`). Work still going on in another process is left alone: an enqueue
    /// filling its `.tmp-` is young.
    private func removeLeftover(_ path: String) {
        guard let status = try? fileStatus(path),
              Int64(status.st_ctim.tv_sec) + leftoverAge < Timestamp.now().secondsSinceEpoch
        else { return }
        try? removeTree(path)
    }

    /// Deletes what removers that died left in `.trash/`: a directory there whose lock can
    /// be taken (an entry taken out alone) has no living remover, nor a flush's list
    /// (`FlushTrash`). One `opendir` of a directory that is nearly always empty, so every
    /// writer can afford it at its start.
    func removeDeadTrash() {
        for name in (try? directoryNames(trashDirectory)) ?? [] {
            let path = trashDirectory + "/" + name
            guard let handle = try? openIfExists(path, O_RDONLY),
                  (try? handle.tryLockExclusive()) == true
            else { continue }
            // A dead flush's list: what it sent is found by its `.sent-` records
            // (`collectSent`); the list goes.
            if name.hasPrefix(FlushTrash.prefix) {
                unlink(path)
                continue
            }
            try? removeTree(path)
        }
    }

    /// Deletes the attempt record of an entry that is gone (sent by a process killed
    /// before it deleted the record); whether it did. Looked at again here, not taken from
    /// a listing: a directory read while others change it may show a new record and not
    /// its entry.
    private func removeAttemptRecordIfOrphaned(_ id: String) -> Bool {
        do {
            guard EntryID.isValid(id), try fileStatus(entryDirectory(id, .queued)) == nil,
                  try fileStatus(entryDirectory(id, .failed)) == nil
            else { return false }
            try removeFile(attemptMarker(id))
            return true
        } catch {
            // Left for the next listing.
            return false
        }
    }

    static func validate(_ id: String) throws {
        guard EntryID.isValid(id) else {
            throw OutboxError(.input, tr("'%@' is not an outbox or draft id", id.visible))
        }
    }

    // MARK: - Changing one entry (each takes the entry's claim)

    /// Takes the exclusive claim on an entry: `nil` when another process holds it or the
    /// entry is gone. The claim is released when the `OutboxClaim` is released (or its
    /// process dies).
    ///
    /// `patience`: how long to keep trying a held lock, in milliseconds. A flush wants
    /// none (a held entry is another flusher's). A user's `retry` or `drop` waits a little:
    /// a lock can outlive its claim by the moment between a `fork` in the holder's
    /// process and the child's `exec`, where the child holds a copy of the descriptor.
    public func claim(_ id: String, state: State = .queued, patience: Int = 0) throws -> OutboxClaim? {
        try Outbox.validate(id)
        let path = entryDirectory(id, state)
        guard let handle = try openIfExists(path, O_RDONLY | O_DIRECTORY) else { return nil }
        var waited = 0
        while try !handle.tryLockExclusive() {
            guard waited < patience else { return nil }
            usleep(2_000)
            waited += 2
        }
        // Between our open and our lock, the holder may have removed or moved the entry:
        // the lock is then on a directory no longer at `path`.
        let held = try handle.status()
        guard let current = try fileStatus(path), current.st_ino == held.st_ino, current.st_dev == held.st_dev,
              let entry = try readEntry(id, state)
        else { return nil }
        return OutboxClaim(outbox: self, entry: entry, state: state, lock: handle)
    }

    /// `claim` for an entry a listing just read (`listed`): when its metadata and attempt
    /// record are as the listing found them, once the lock is held, the listing's entry is
    /// the entry, and the files are not read again (a flush claims every message it sends).
    /// `meta.json` is only ever replaced whole, and an entry is never moved without a new
    /// one, so the same file at the entry's path means the same, unchanged, entry in the
    /// directory that is locked.
    func claim(_ listed: ListedEntry) throws -> OutboxClaim? {
        let id = listed.entry.id
        let path = entryDirectory(id, .queued)
        guard let handle = try openIfExists(path, O_RDONLY | O_DIRECTORY) else { return nil }
        guard try handle.tryLockExclusive() else { return nil }
        // Sent by another flush since the listing.
        guard try fileStatus(sentRecord(id)) == nil else { return nil }
        let record = try fileStatus(attemptMarker(id)).map(FileIdentity.init)
        if let metadata = try fileStatus(path + "/" + Outbox.metadataName), FileIdentity(metadata) == listed.metadata,
           record == listed.record {
            return OutboxClaim(outbox: self, entry: listed.entry, state: .queued, lock: handle)
        }
        // Changed since the listing: read again, as any claim does.
        let held = try handle.status()
        guard let current = try fileStatus(path), current.st_ino == held.st_ino, current.st_dev == held.st_dev,
              let entry = try readEntry(id, .queued)
        else { return nil }
        return OutboxClaim(outbox: self, entry: entry, state: .queued, lock: handle)
    }

    /// Like `claim`, but an entry held elsewhere or unknown is an error the user reads.
    func claimOrThrow(_ id: String) throws -> OutboxClaim {
        removeDeadTrash()
        let (_, state) = try entry(id)
        guard let claim = try claim(id, state: state, patience: 500) else {
            if try readEntry(id, state) == nil {
                throw OutboxError(.input, tr("no outbox entry '%@'", id))
            }
            throw OutboxError(.transient, tr("outbox entry '%@' is being sent by another mailto-route right now", id))
        }
        return claim
    }

    /// Records a failed attempt on a queued entry: see `OutboxClaim.recordFailedAttempt`.
    @discardableResult
    public func markAttempt(_ id: String, error: Failure, now: Timestamp = .now()) throws -> AttemptOutcome {
        try claimOrThrow(id).recordFailedAttempt(error, now: now)
    }

    /// Removes a queued entry whose message a server accepted.
    public func remove(_ id: String) throws {
        try claimOrThrow(id).markSent()
    }

    /// Makes an entry due now; a failed entry goes back to the queue with a new lifetime.
    @discardableResult
    public func retry(_ id: String, now: Timestamp = .now()) throws -> OutboxEntry {
        try claimOrThrow(id).retryNow(now: now)
    }

    /// Deletes an entry, queued or failed, without sending it: the user's choice.
    public func drop(_ id: String) throws {
        try claimOrThrow(id).discard()
    }

    /// Undo of a held message: see `OutboxClaim.undo`. Returns the message as it was held.
    @discardableResult
    public func undo(_ id: String, now: Timestamp = .now()) throws -> [UInt8] {
        try claimOrThrow(id).undo(now: now)
    }
}

/// An entry as a listing read it, with what its files were then, so that a claim that
/// finds them unchanged can take the entry as read (`Outbox.claim(_:)`).
struct ListedEntry {
    var entry: OutboxEntry
    var metadata: FileIdentity
    /// Its attempt record, when it had one.
    var record: FileIdentity?
}

/// Which file was read: the same file (device, inode, size, change time to the
/// nanosecond) was not replaced, or linked again, since.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let changedSeconds: Int64
    let changedNanoseconds: Int64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        changedSeconds = Int64(status.st_ctim.tv_sec)
        changedNanoseconds = Int64(status.st_ctim.tv_nsec)
    }
}

/// What came of a failed attempt.
public enum AttemptOutcome: Equatable, Sendable {
    /// Still queued; tried again at `entry.nextAttempt`.
    case rescheduled(OutboxEntry)
    /// Given up on (a permanent error, or its lifetime is over): moved to `failed/`.
    case movedToFailed(OutboxEntry)

    public var entry: OutboxEntry {
        switch self {
        case .rescheduled(let entry), .movedToFailed(let entry): entry
        }
    }
}
