#if canImport(Glibc)
import Glibc
#endif
internal import CGTK
public import MailtoCore
import MainLoop
import Synchronization

/// What the user typed, kept on disk while a sheet is open, so that a sheet that is killed
/// or crashes loses nothing (docs/design.md rule 3): `$XDG_STATE_HOME/mailto-route/recovery/`,
/// one `ID.recovery` (mode 0600, replaced whole by rename, never half-written) and one
/// `ID.lock` that the sheet's process holds an `flock` on for as long as it lives. A
/// recovery file whose lock nobody holds was left by a sheet that is gone.
public struct RecoveryStore: Sendable {
    public let directory: String

    /// `stateDirectory`: `$XDG_STATE_HOME/mailto-route`, as the run found it.
    public init(stateDirectory: String) {
        directory = stateDirectory + "/recovery"
    }

    /// A message recovered here and shown in the sheet `create` makes: its files go once
    /// that sheet's own recovery file holds it (rule 3), not before.
    public var carried: RecoveredMessage?

    /// The messages of sheets that ended without finishing, oldest first, each held (its
    /// lock taken) so that two starts never offer the same one twice. Their files stay
    /// until `RecoveredMessage.discard` once the message is kept elsewhere; one that is not
    /// (the process ends first) is found again by the next start.
    public func takeLeftovers() -> [RecoveredMessage] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        var locks: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name.hasSuffix(".recovery") { names.append(String(name.dropLast(".recovery".count))) }
            if name.hasSuffix(".lock"), !name.hasPrefix(".") { locks.append(String(name.dropLast(".lock".count))) }
        }
        // The locks of sheets that ended before anything was typed (killed, crashed).
        for id in locks where !names.contains(id) {
            let lockPath = "\(directory)/\(id).lock"
            let lock = open(lockPath, O_RDWR | O_CLOEXEC)
            guard lock >= 0 else { continue }
            if flock(lock, LOCK_EX | LOCK_NB) == 0 { unlink(lockPath) }
            close(lock)
        }
        var found: [RecoveredMessage] = []
        for id in names.sorted() {
            let lockPath = "\(directory)/\(id).lock"
            var lock = open(lockPath, O_RDWR | O_CLOEXEC)
            if lock < 0 {
                // A recovery file whose lock is gone: locked afresh, so that it is held here.
                lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            }
            // Held: that sheet is still open (another click's), or another start has it.
            guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else {
                if lock >= 0 { close(lock) }
                continue
            }
            let files = LeftoverFiles(recovery: "\(directory)/\(id).recovery", lock: lockPath, descriptor: lock)
            let bytes = readFile(files.recovery)
            if let bytes, let email = RecoveryFormat.read(bytes) {
                found.append(RecoveredMessage(email: email, files: files))
            } else if bytes?.isEmpty == true {
                // Nothing in it to keep.
                files.discard()
            }
            // One that does not read stays for a later version, or the user, to look at.
        }
        return found
    }

    /// A recovery file for one sheet, locked; `nil` when the directory cannot be made
    /// (then the sheet works without one).
    func create() -> RecoveryFile? {
        guard makeDirectories() else { return nil }
        let random = UInt64.random(in: 0...UInt64.max)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let id = "\(now.tv_sec)-\(getpid())-\(String(random, radix: 16))"
        // Locked under a name of its own, then renamed: a lock file under its real name is
        // always held by a live sheet or by nobody, never caught between open and flock.
        let temporary = "\(directory)/.\(id).lock"
        let lock = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard lock >= 0 else { return nil }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0, rename(temporary, "\(directory)/\(id).lock") == 0 else {
            unlink(temporary)
            close(lock)
            return nil
        }
        return RecoveryFile(directory: directory, id: id, lock: lock, replacing: carried)
    }

    private func makeDirectories() -> Bool {
        var path = ""
        for component in directory.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o700) != 0, errno != EEXIST { return false }
        }
        return true
    }
}

/// A message a sheet left behind, its files held until it is kept elsewhere.
public struct RecoveredMessage: Sendable {
    public var email: EmailData
    let files: LeftoverFiles

    /// The message is kept elsewhere now (a draft, another sheet's recovery file): its
    /// files go.
    public func discard() { files.discard() }
}

/// The files of a recovered message and the lock held on them; the lock goes with the
/// last copy of the message (a start that ends leaves the files for the next one).
final class LeftoverFiles: Sendable {
    let recovery: String
    let lockPath: String
    private let descriptor: Mutex<Int32>

    init(recovery: String, lock: String, descriptor: Int32) {
        self.recovery = recovery
        lockPath = lock
        self.descriptor = Mutex(descriptor)
    }

    func discard() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            unlink(recovery)
            unlink(lockPath)
            close(descriptor)
            descriptor = -1
        }
    }

    deinit {
        descriptor.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
        }
    }
}

/// One sheet's recovery file: the lock held from creation to `remove()`. Written on a
/// worker thread (encoding and writing a 10 MB body is not for the main loop), so its
/// state is behind a lock: one write at a time, and none after `remove()`.
final class RecoveryFile: Sendable {
    let directory: String
    let id: String
    var path: String { "\(directory)/\(id).recovery" }
    private struct State {
        var lock: Int32
        var writing = false
        /// The outbox holds the message (a Send held for Undo): no file, none written.
        var suspended = false
        /// The recovered message this sheet shows: its files go once this file is written.
        var replacing: RecoveredMessage?
        /// Writes begun, and the last of them renamed into place: a write may be under way
        /// on a worker while the main thread writes (Undo), and the later one must win.
        var begun = 0
        var published = 0
    }
    private let state: Mutex<State>

    init(directory: String, id: String, lock: Int32, replacing: RecoveredMessage? = nil) {
        self.directory = directory
        self.id = id
        state = Mutex(State(lock: lock, replacing: replacing))
    }

    /// Whether a write is under way (the next one waits for the timer's next tick).
    var isWriting: Bool { state.withLock { $0.writing } }

    /// Writes `email` on a worker thread; returns at once.
    @GLibMainActor
    func writeInBackground(_ email: EmailData) {
        let started = state.withLock { state -> Bool in
            guard !state.writing, state.lock >= 0, !state.suspended else { return false }
            state.writing = true
            return true
        }
        guard started else { return }
        Background.run({ [self] in write(email) }, then: { _ in })
    }

    /// Replaces the file with `email`; a failure leaves the previous one (it is a safety
    /// net: the sheet itself still holds the text).
    func write(_ email: EmailData) {
        let bytes = RecoveryFormat.write(email)
        let ticket = state.withLock { state in
            state.begun += 1
            return state.begun
        }
        // A temporary file of its own: two writes never share one.
        let temporary = "\(directory)/.\(id).\(ticket).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return finishWrite() }
        let ok = bytes.withUnsafeBytes { writeAll(fd, $0) } == nil
        close(fd)
        // Renamed into place only while the sheet is open (after remove() it is gone for
        // good), and only when no later write was renamed before it.
        state.withLock { state in
            if ok, state.lock >= 0, !state.suspended, ticket > state.published, rename(temporary, path) == 0 {
                state.published = ticket
                // The recovered message it shows is in this file now.
                state.replacing?.discard()
                state.replacing = nil
            } else {
                unlink(temporary)
            }
            state.writing = false
        }
    }

    private func finishWrite() {
        state.withLock { $0.writing = false }
    }

    /// The outbox has the message (a Send held for Undo): the file goes, and no write
    /// brings it back until `resume`. The lock stays: the sheet is alive.
    func suspend() {
        state.withLock { state in
            state.suspended = true
            unlink(path)
        }
    }

    /// Undo gave the message back to the sheet: written now, before the outbox lets it go
    /// (rule 3), and from here on as before.
    func resume(with email: EmailData) {
        state.withLock { $0.suspended = false }
        write(email)
    }

    /// Undo's taking back of a held message, for a sheet and a closed one's hold alike:
    /// this file has `email` before the outbox lets it go (rule 3: from then on only the
    /// sheet holds it), and is suspended again when the outbox keeps it. `nil`: the
    /// message is back; else why not (`SheetHost.undoHold`).
    @GLibMainActor
    static func takeBack(_ email: EmailData, into file: RecoveryFile?, from host: any SheetHost) -> String? {
        file?.resume(with: email)
        guard let problem = host.undoHold() else { return nil }
        file?.suspend()
        return problem
    }

    /// The sheet ended as the user chose: nothing to recover.
    func remove() {
        state.withLock { state in
            guard state.lock >= 0 else { return }
            // The recovered message it showed ended as the user chose, too.
            state.replacing?.discard()
            state.replacing = nil
            unlink(path)
            unlink("\(directory)/\(id).lock")
            close(state.lock)
            state.lock = -1
        }
    }

    /// For the tests: lets go of the lock and leaves the file, as a killed process does.
    func releaseLockAsACrashWould() {
        state.withLock { state in
            guard state.lock >= 0 else { return }
            close(state.lock)
            state.lock = -1
        }
    }

    deinit {
        state.withLock { state in
            if state.lock >= 0 { close(state.lock) }
        }
    }
}

/// The recovery file's text: a first line naming the format, the message as a `mailto:`
/// URL (MailtoCore's exact encoder and parser, so nothing is lost on the way back), then a
/// line per file: `file PATH` for a trusted or added attachment, `requested PATH` for one
/// a link asked for (offered again unticked), each path percent-encoded.
enum RecoveryFormat {
    static let header = "mailto-route recovery 1"

    static func write(_ email: EmailData) -> [UInt8] {
        var out = Array((header + "\n" + MailtoURL.encode(email) + "\n").utf8)
        for attachment in email.attachments {
            if case .file(let path) = attachment.content {
                out += Array("file \(PercentEncoding.unreservedOnly(path))\n".utf8)
            }
        }
        for path in email.requestedAttachments {
            out += Array("requested \(PercentEncoding.unreservedOnly(path))\n".utf8)
        }
        return out
    }

    static func read(_ bytes: [UInt8]) -> EmailData? {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        guard lines.count >= 2, String(decoding: lines[0], as: UTF8.self) == header,
              var email = try? MailtoURL.parse(String(decoding: lines[1], as: UTF8.self))
        else { return nil }
        email.dropped = []
        email.requestedAttachments = []
        for line in lines.dropFirst(2) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("file "), let path = percentDecoded(text.dropFirst(5)) {
                email.attachments.append(.file(path))
            } else if text.hasPrefix("requested "), let path = percentDecoded(text.dropFirst(10)) {
                email.requestedAttachments.append(path)
            }
        }
        return email
    }

    static func percentDecoded(_ text: Substring) -> String? {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard bytes.count >= 2, let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else {
                return nil
            }
            out.append(value)
            bytes = bytes.dropFirst(2)
        }
        return String(validating: out, as: UTF8.self)
    }
}

func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0, errno == EINTR { continue }
        guard n >= 0 else { return nil }
        if n == 0 { return out }
        out += buffer[..<n]
    }
}
