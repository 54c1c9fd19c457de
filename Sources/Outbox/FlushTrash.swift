#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// What becomes of the entries a flush sent. Sending one takes it out of the outbox with
/// one rename in the outbox's directory, of its attempt record to `.sent-<id>`
/// (`OutboxClaim.markSentUnsynced`): an entry with that record is in no listing and no
/// claim. Its files are deleted after, the entry's directory first and the record last
/// (the other way round, a crash in between would bring the entry back).
///
/// Deleting costs more than sending: each entry frees three blocks (its directory,
/// `message.eml`, `meta.json`), and on a file system mounted with `discard` (as many SSDs
/// and virtual disks are) each free waits for the device to trim it, about a millisecond;
/// meanwhile the file system's allocation waits too, so a deletion slows the flush's own
/// records. The files took their disk space before the flush began, and nothing waits for
/// them, so:
///
/// - in a process that stays (`outbox watch`, the desktop service), they are deleted on
///   threads of their own while the flush goes on sending, once the sync that made their
///   removal durable is over (`add`); several threads wait for the device side by side
///   (on the bench's virtual disk, four cut the time of 1,000 removals from 8.8 s to 1.0 s);
/// - for a process about to exit (the command line's `outbox flush`: `inBackground`), their
///   paths are written to a list, and `finish` leaves the list to `xargs rm -rf` in the
///   background: the command returns once the messages are sent and their removal is
///   durable, not once their files are gone.
///
/// The list, `.trash/flush-<pid>-<random>`, made at the first sent message, is locked for
/// as long as anything of the flush is being deleted (by this object, then through `rm`'s
/// inherited descriptor), so that no other process deletes sent entries meanwhile
/// (`Outbox.collectSent`); one whose lock can be taken is dead, and the sent entries it
/// leaves are deleted by the next listings, a few at a time.
///
/// The one owner of its threads and of the list and its lock.
final class FlushTrash: @unchecked Sendable {
    // @unchecked Sendable: `pending` and `finishing` are read and written inside
    // `monitor` only; the other stored properties are set before any thread starts, or
    // used by the flushing thread only.
    private let outbox: Outbox
    /// Everything is left to a background `rm` at `finish`.
    let inBackground: Bool
    private let monitor = Monitor()
    /// Guarded by `monitor`.
    private var pending: [TakenOut] = []
    private var finishing = false
    private var threads: [WorkerThread] = []
    private var list: FileDescriptor?

    /// Deleting threads: a discard takes the device's time, not the CPU's, and several
    /// can be under way at once.
    static let threadCount = 4

    /// How a flush's list in `.trash/` is named, before its process id.
    static let prefix = "flush-"

    init(outbox: Outbox, inBackground: Bool = false) {
        self.outbox = outbox
        self.inBackground = inBackground
    }

    /// Makes and locks the list (and starts the deleting threads), once, before the first
    /// entry is marked sent: from then on other processes leave sent entries alone.
    func start() throws {
        guard list == nil else { return }
        try makeDirectories(outbox.trashDirectory)
        list = try Self.makeLockedList(in: outbox.trashDirectory)
        for _ in 0..<(inBackground ? 0 : Self.threadCount) {
            if let thread = WorkerThread({ self.run() }) { threads.append(thread) }
        }
    }

    /// Has entries deleted whose removal is durable (the outbox's directory was synced
    /// after they were marked sent): listed for `finish`, or given to the threads.
    func add(_ taken: [TakenOut]) {
        guard !taken.isEmpty else { return }
        if inBackground, let list {
            // In order: each entry's directory, then its record.
            var paths: [UInt8] = []
            for item in taken {
                for path in [item.path] + (item.sentRecord.map { [$0] } ?? []) { paths += Array(path.utf8) + [0] }
            }
            if (try? list.writeAll(paths)) != nil { return }
        }
        guard !threads.isEmpty else {
            // No thread (or no list to write): deleted here and now.
            for item in taken { item.delete() }
            return
        }
        monitor.locked {
            pending += taken
            monitor.wake()
        }
    }

    /// Ends the flush's deleting: waits for the last deletions; or, `inBackground`, leaves
    /// the list to `xargs rm -rf` in the background, which holds its lock until it is done,
    /// the list itself last (when that cannot be started, they are deleted here).
    func finish() {
        guard let list else { return }
        monitor.locked {
            finishing = true
            monitor.wake()
        }
        for thread in threads { thread.join() }
        threads = []
        if inBackground, (try? list.writeAll(Array(list.path.utf8) + [0])) != nil,
           removeInBackground(listedIn: list.path, keeping: list) {
            // rm has the lock now.
        } else {
            // In the list's order: an entry's directory, then its record.
            if inBackground, let listed = try? readFileIfExists(list.path) {
                for bytes in listed.split(separator: 0) {
                    let path = String(decoding: bytes, as: UTF8.self)
                    var isDirectory = false
                    if fileExists(path, isDirectory: &isDirectory), isDirectory {
                        TakenOut(path: path, sentRecord: nil, lock: nil).delete()
                    } else {
                        unlink(path)
                    }
                }
            }
            unlink(list.path)
        }
        try? list.close()
        self.list = nil
    }

    /// A new list in `directory`, locked, and still there. Between its creation and its
    /// lock another process may take the lock (`anyAlive` tries it) or, taking it, delete
    /// the list as a dead flush's (`Outbox.removeDeadTrash`): then another name is tried.
    private static func makeLockedList(in directory: String) throws -> FileDescriptor {
        for _ in 0..<8 {
            let path = directory + "/" + prefix + "\(processID)-" + EntryID.randomSuffix()
            let made = try openFile(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, operation: tr("cannot create"))
            if try made.tryLockExclusive(), let named = try fileStatus(path), let held = try? made.status(),
               named.st_ino == held.st_ino, named.st_dev == held.st_dev {
                return made
            }
            unlink(path)
            try? made.close()
        }
        throw OutboxError(.transient, tr("cannot lock a list of sent messages in"), path: directory)
    }

    /// A deleting thread: the entries given, until `finish` and none is left.
    private func run() {
        while let item = monitor.locked({ () -> TakenOut? in
            while pending.isEmpty, !finishing { monitor.wait() }
            return pending.popLast()
        }) {
            item.delete()
        }
    }

    /// Whether a flush (living, or its background `rm`) is deleting the entries it sent:
    /// a list in `.trash/` whose lock is held. A directory there (one entry taken out
    /// alone) is not a flush's.
    static func anyAlive(in outbox: Outbox) -> Bool {
        for name in (try? directoryNames(outbox.trashDirectory)) ?? [] where name.hasPrefix(prefix) {
            guard let file = try? openIfExists(outbox.trashDirectory + "/" + name, O_RDONLY) else { continue }
            if (try? file.tryLockExclusive()) == false { return true }
        }
        return false
    }
}

/// An entry taken out of the outbox, to be deleted: its directory (in `.trash/`, or in
/// place with its `.sent-<id>` record), and the lock on it for one taken out alone
/// (`markSent`), held until it is gone.
struct TakenOut {
    let path: String
    /// `.sent-<id>`, deleted after the entry.
    let sentRecord: String?
    let lock: FileDescriptor?

    /// Deletes the entry's files by name (no listing: an entry holds these two), then the
    /// directory (a leftover temporary file inside makes that a full removal), then its
    /// record; lets the lock go. What cannot be deleted now (a read-only disk) is left to
    /// the next writer.
    func delete() {
        unlink(path + "/" + Outbox.messageName)
        unlink(path + "/" + Outbox.metadataName)
        if rmdir(path) != 0, errno != ENOENT { try? removeTree(path) }
        // Only once the entry is gone: its record alone keeps it out of every listing.
        if let sentRecord, access(path, F_OK) != 0, errno == ENOENT { unlink(sentRecord) }
        try? lock?.close()
    }
}
