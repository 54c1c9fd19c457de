#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

// The outbox's system calls, each behind one thin function: EINTR is retried here and a
// failure becomes an `OutboxError` through `OutboxError.system`, nowhere else.

/// Wraps `open(2)`; the descriptor is owned by the returned `FileDescriptor`.
func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0o600, operation: @autoclosure () -> String = tr("cannot open")) throws -> FileDescriptor {
    while true {
        let raw = open(path, flags | O_CLOEXEC, mode)
        if raw >= 0 { return FileDescriptor(raw, path: path) }
        if errno == EINTR { continue }
        throw OutboxError.system(operation(), path: path, errno: errno)
    }
}

/// Wraps `open(2)` and returns `nil` when the file does not exist.
func openIfExists(_ path: String, _ flags: Int32) throws -> FileDescriptor? {
    do {
        return try openFile(path, flags)
    } catch let error as OutboxError where error.errno == ENOENT {
        return nil
    }
}

/// `openIfExists` for reading a file of the outbox's own, without updating its access
/// time (`MailtoCore.openForReading`).
func openForReadingIfExists(_ path: String) throws -> FileDescriptor? {
    let raw = openForReading(path)
    if raw >= 0 { return FileDescriptor(raw, path: path) }
    if errno == ENOENT { return nil }
    throw OutboxError.system(tr("cannot open"), path: path, errno: errno)
}

/// Wraps `link(2)`: `path` becomes another name of the file at `target`; an existing
/// `path` is an error (`EEXIST`).
func makeLink(to target: String, at path: String, operation: @autoclosure () -> String = tr("cannot create")) throws {
    while link(target, path) != 0 {
        if errno == EINTR { continue }
        throw OutboxError.system(operation(), path: path, errno: errno)
    }
}

/// Wraps `mkdir(2)`; an existing directory is not an error.
func makeDirectory(_ path: String, mode: mode_t = 0o700) throws -> Bool {
    if mkdir(path, mode) == 0 { return true }
    if errno == EEXIST { return false }
    throw OutboxError.system(tr("cannot create directory"), path: path, errno: errno)
}

/// Creates `path` and its missing parents with `mode`, syncing each parent that gained
/// an entry so that the new directory survives a crash.
package func makeDirectories(_ path: String, mode: mode_t = 0o700) throws {
    var isDirectory = false
    if fileExists(path, isDirectory: &isDirectory) {
        guard isDirectory else {
            throw OutboxError(.configuration, tr("not a directory:"), path: path)
        }
        return
    }
    let parent = parentDirectory(of: path)
    if parent != path { try makeDirectories(parent, mode: mode) }
    if try makeDirectory(path, mode: mode) {
        try syncDirectory(parent)
    }
}

/// Wraps `rename(2)`.
func renameFile(_ from: String, to: String) throws {
    if rename(from, to) == 0 { return }
    throw OutboxError.system(tr("cannot rename %@ to", from), path: to, errno: errno)
}

/// Wraps `symlink(2)`: a link at `path` to `target` (a `LocalPath`, whose bytes are the
/// link's contents).
package func makeSymbolicLink(to target: String, at path: String) throws {
    if LocalPath.withCString(target, { symlink($0, path) }) == 0 { return }
    throw OutboxError.system(tr("cannot make a link to %@ at", LocalPath.display(target)), path: path, errno: errno)
}

/// Wraps `unlink(2)`; a file that is already gone is not an error.
func removeFile(_ path: String) throws {
    if unlink(path) == 0 || errno == ENOENT { return }
    throw OutboxError.system(tr("cannot remove"), path: path, errno: errno)
}

/// Wraps `rmdir(2)`; a directory that is already gone is not an error.
func removeDirectory(_ path: String) throws {
    if rmdir(path) == 0 || errno == ENOENT { return }
    throw OutboxError.system(tr("cannot remove directory"), path: path, errno: errno)
}

/// Removes a directory of plain files (an outbox entry, a leftover temporary entry).
package func removeTree(_ path: String) throws {
    for name in try directoryNames(path) {
        try removeFile(path + "/" + name)
    }
    try removeDirectory(path)
}

/// Wraps `fsync(2)` on a directory: makes the names created, renamed or removed in it
/// durable.
func syncDirectory(_ path: String) throws {
    let directory = try openFile(path, O_RDONLY | O_DIRECTORY, operation: tr("cannot open directory"))
    try directory.sync()
    try directory.close()
}

/// Wraps `stat(2)`; `nil` when nothing is at `path`.
package func fileStatus(_ path: String) throws -> stat? {
    var status = stat()
    if stat(path, &status) == 0 { return status }
    if errno == ENOENT || errno == ENOTDIR { return nil }
    throw OutboxError.system(tr("cannot read the status of"), path: path, errno: errno)
}

func fileExists(_ path: String, isDirectory: inout Bool) -> Bool {
    guard let status = try? fileStatus(path) else { return false }
    isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
    return true
}

/// Wraps `opendir(3)`/`readdir(3)`: the names in a directory, without `.` and `..`,
/// unsorted. A missing directory has no names.
package func directoryNames(_ path: String) throws -> [String] {
    guard let stream = opendir(path) else {
        if errno == ENOENT { return [] }
        throw OutboxError.system(tr("cannot list"), path: path, errno: errno)
    }
    defer { closedir(stream) }
    var names: [String] = []
    while true {
        errno = 0
        guard let entry = readdir(stream) else {
            if errno != 0 { throw OutboxError.system(tr("cannot list"), path: path, errno: errno) }
            return names
        }
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
}

/// Reads a whole file; `nil` when it does not exist.
package func readFileIfExists(_ path: String) throws -> [UInt8]? {
    try readFileAndMode(path)?.bytes
}

/// A whole file and its permission bits, through one descriptor (`open`, `fstat`,
/// `read`), so that the mode is the read file's own; `nil` when it does not exist. Files
/// read whole are small (a config file, a message body, a draft): at most `limit` bytes.
package func readFileAndMode(_ path: String, limit: Int = 64 * 1024 * 1024) throws -> (bytes: [UInt8], mode: mode_t)? {
    guard let file = try openIfExists(path, O_RDONLY) else { return nil }
    let mode = try file.status().st_mode & 0o7777
    let bytes = try file.readAll(limit: limit)
    try file.close()
    return (bytes, mode)
}

func parentDirectory(of path: String) -> String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
    if slash == path.utf8.startIndex { return "/" }
    return String(path[..<slash])
}

/// The process id, for names of temporary files that must not collide across processes.
var processID: Int32 { getpid() }
