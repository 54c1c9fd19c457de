#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// What `/proc` says of one running process: enough to tell who asked for a message (the
/// program that ran `xdg-email`, docs/design.md rule 8). Read for processes of this user only;
/// any field the kernel does not show is `nil` or empty, and the judgement that uses it
/// fails closed.
public struct ProcessFacts: Sendable, Equatable {
    public var pid: Int32
    /// The parent now: a process whose parent exited has been given to init or to a
    /// subreaper, so this is not always the program that started it.
    public var parent: Int32
    /// The real user id.
    public var uid: UInt32
    /// When it started, in clock ticks since boot (`/proc/PID/stat`, field 22): a parent
    /// started after its child is another process that got the pid again.
    public var startTime: UInt64
    /// `/proc/PID/exe`: the program's file (a shell for a script).
    public var executable: String?
    /// `/proc/PID/cmdline`: for a script, the interpreter, then the script's path.
    public var arguments: [String]
    /// The same words as bytes: a file's name in one need not be UTF-8, and `arguments`
    /// shows such a byte as U+FFFD.
    public var argumentBytes: [[UInt8]]
    /// `/proc/PID/cwd`, against which a relative path the program was given is read.
    public var workingDirectory: String?
    /// The unit of the desktop's app scope the process runs in (systemd's
    /// `app-gnome-libreoffice\x2dwriter-1234.scope`), from `/proc/PID/cgroup`; kept by
    /// the kernel for every descendant of what the desktop launched, also after its parent
    /// exited. `nil` when the process is in none.
    public var appUnit: String?

    public init(
        pid: Int32, parent: Int32, uid: UInt32, startTime: UInt64, executable: String?, arguments: [String],
        argumentBytes: [[UInt8]]? = nil, workingDirectory: String? = nil, appUnit: String? = nil
    ) {
        self.pid = pid
        self.parent = parent
        self.uid = uid
        self.startTime = startTime
        self.executable = executable
        self.arguments = arguments
        self.argumentBytes = argumentBytes ?? arguments.map { Array($0.utf8) }
        self.workingDirectory = workingDirectory
        self.appUnit = appUnit
    }

    /// This process's parent, as it is now (`getppid(2)`).
    public static var ownParent: Int32 { getppid() }

    /// This process's real user id (`getuid(2)`).
    public static var ownUID: UInt32 { getuid() }

    /// Reads `/proc/PID/{stat,status,exe,cmdline,cwd,cgroup}`; `nil` when the process is
    /// gone or its `stat` cannot be read.
    public static func read(pid: Int32) -> ProcessFacts? {
        guard pid > 0, let stat = readProc(pid, "stat"), let fields = statFields(stat),
              let status = readProc(pid, "status"), let uid = realUID(status) else { return nil }
        var words = (readProc(pid, "cmdline") ?? []).split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
        if words.last?.isEmpty == true { words.removeLast() }
        return ProcessFacts(
            pid: pid, parent: fields.parent, uid: uid, startTime: fields.startTime,
            executable: readLink("/proc/\(pid)/exe"),
            arguments: words.map { String(decoding: $0, as: UTF8.self) }, argumentBytes: words,
            workingDirectory: readLink("/proc/\(pid)/cwd"),
            appUnit: readProc(pid, "cgroup").flatMap(appUnit(inCgroupFile:)))
    }

    /// The files `pid` holds open, as `/proc/PID/fd/*` links name them (sockets, pipes and
    /// the like left out); empty when they cannot be read (another user's process).
    public static func openFiles(pid: Int32) -> [String] {
        entryNames("/proc/\(pid)/fd").compactMap { name in
            readLink("/proc/\(pid)/fd/\(name)").flatMap { $0.hasPrefix("/") ? $0 : nil }
        }
    }

    /// The ids of the processes running now (`/proc`'s numbered entries).
    public static func runningPIDs() -> [Int32] {
        entryNames("/proc").compactMap { Int32($0) }
    }

    /// The desktop's app unit in a `/proc/PID/cgroup` file: the last path component of
    /// any hierarchy's line that is an `app-….scope` or `app-….service` (systemd's naming
    /// for desktop applications, systemd.io/DESKTOP_ENVIRONMENTS; cgroup v2's `0::` line,
    /// or v1's `name=systemd` on a hybrid system).
    static func appUnit(inCgroupFile bytes: [UInt8]) -> String? {
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let colon = line.lastIndex(of: ":") else { continue }
            let path = line[line.index(after: colon)...]
            for component in path.split(separator: "/").reversed()
            where component.hasPrefix("app-") && (component.hasSuffix(".scope") || component.hasSuffix(".service")) {
                return String(component)
            }
        }
        return nil
    }

    /// `/proc/PID/stat`'s parent (field 4) and start time (field 22). The command name
    /// (field 2) is in parentheses and may hold spaces and parentheses itself, so the
    /// fields are counted after its last `)`.
    static func statFields(_ bytes: [UInt8]) -> (parent: Int32, startTime: UInt64)? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let rest = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // rest[0] is field 3 (the state), so field N is rest[N - 3].
        guard rest.count > 19, let parent = Int32(String(decoding: rest[1], as: UTF8.self)),
              let start = UInt64(String(decoding: rest[19], as: UTF8.self)) else { return nil }
        return (parent, start)
    }

    /// The real uid of `/proc/PID/status`'s `Uid:` line (real, effective, saved, fs).
    static func realUID(_ bytes: [UInt8]) -> UInt32? {
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Uid:") {
            return line.dropFirst(4).split(whereSeparator: { $0 == "\t" || $0 == " " }).first.flatMap { UInt32($0) }
        }
        return nil
    }
}

/// The whole of `/proc/PID/NAME` (its size says 0, so it is read to the end).
private func readProc(_ pid: Int32, _ name: String) -> [UInt8]? {
    let fd = open("/proc/\(pid)/\(name)", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count >= 0 else { return nil }
        if count == 0 { return bytes }
        bytes += buffer[..<count]
        // A cmdline or cgroup file is small; a runaway read is not what any of these are.
        if bytes.count > 1 << 20 { return bytes }
    }
}

/// Wraps `opendir(3)`/`readdir(3)`: the names in the directory at `path`, `.` and `..`
/// among them; empty when it cannot be read.
private func entryNames(_ path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }
    return names
}

/// Wraps `readlink(2)`; `nil` when the link cannot be read (another user's process, a
/// kernel thread, a process that is gone).
private func readLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Wraps `realpath(3)`: `path` (a `LocalPath`) with every symbolic link and `.`/`..`
/// resolved, as `readlink -f` (which xdg-email uses) gives it; `nil` when it does not exist.
public func resolvedPath(_ path: String) -> String? {
    guard let resolved = LocalPath.withCString(path, { realpath($0, nil) }) else { return nil }
    defer { free(resolved) }
    return LocalPath.text(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
}

/// The owner of the file at `path` (`stat(2)`, links followed); `nil` when it cannot be
/// looked at.
public func fileOwner(_ path: String) -> UInt32? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_uid
}
