#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// A program run without a shell of ours and without a terminal: `posix_spawnp` in a new
/// session (no controlling terminal), standard input from /dev/null, standard output and
/// error through pipes. Started at once; `finish` collects it within a time limit, so a
/// caller can do other work while it runs (`--check` runs `xdg-mime` alongside the rest).
package final class Subprocess {
    /// What a finished (or abandoned) program left.
    package struct Finished {
        package var output: [UInt8]
        /// At most 4 KiB of standard error.
        package var errors: [UInt8]
        /// The exit status; `nil` when it was killed or did not finish in time.
        package var status: Int32?
        package var timedOut: Bool

        /// Standard error as one line, for a message.
        package var errorText: String {
            String(decoding: errors, as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " / ")
        }
    }

    private let pid: pid_t
    private let output: Int32
    private let errors: Int32
    private var finished: Finished?

    /// Starts `argv` (its first word looked up in `PATH`). Throws the `errno` text when it
    /// cannot be started.
    package init(_ argv: [String]) throws(SubprocessError) {
        precondition(!argv.isEmpty, "a subprocess needs a program")
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw SubprocessError("pipe: \(systemErrorText(errno))") }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0])
            close(outPipe[1])
            throw SubprocessError("pipe: \(systemErrorText(errno))")
        }
        let pid: pid_t
        do {
            pid = try spawn(argv, input: .devNull, output: .descriptor(outPipe[1]), errors: .descriptor(errPipe[1]),
                            closing: outPipe + errPipe, newSession: true)
        } catch {
            for descriptor in outPipe + errPipe { close(descriptor) }
            throw error
        }
        close(outPipe[1])
        close(errPipe[1])
        self.pid = pid
        output = outPipe[0]
        errors = errPipe[0]
    }

    deinit {
        _ = finish(within: 0)
    }

    /// Reads both pipes to their end (so neither can fill up) and reaps the program; one
    /// still running after `milliseconds` is killed. Returns the same value when called again.
    package func finish(within milliseconds: Int) -> Finished {
        if let finished { return finished }
        var collected = Finished(output: [], errors: [], status: nil, timedOut: false)
        var open = [output, errors]
        let deadline = MonotonicClock.milliseconds + milliseconds
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !open.isEmpty {
            let remaining = deadline - MonotonicClock.milliseconds
            if remaining <= 0 {
                collected.timedOut = true
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(clamping: remaining))
            if ready < 0, errno == EINTR { continue }
            if ready < 0 {
                // The pipes cannot be read: the program is not left to write into them
                // forever, nor waited for.
                kill(pid, SIGKILL)
                break
            }
            if ready == 0 {
                collected.timedOut = true
                break
            }
            for entry in fds where entry.revents != 0 {
                let got = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if got > 0 {
                    if entry.fd == output {
                        collected.output += buffer[0..<got]
                    } else if collected.errors.count < 4096 {
                        collected.errors += buffer[0..<got]
                    }
                } else if got == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        if collected.timedOut { kill(pid, SIGKILL) }
        let status = waitFor(pid)
        close(output)
        close(errors)
        if !collected.timedOut, case .exited(let code) = status { collected.status = code }
        finished = collected
        return collected
    }
}

/// Starts `xargs -0 -a list rm -rf --` in a session of its own (no terminal's Ctrl-C or
/// hang-up reaches it): it deletes the NUL-separated paths in `list`, in order, with its
/// standard streams on /dev/null, `descriptor` as its descriptor 3 (and its `rm`s') and
/// no other open, so that a lock held through that descriptor stays held until the last
/// `rm` is done. Not waited for: for a process about to exit, whose children are then
/// reaped by init.
/// `false` when it could not be started.
func removeInBackground(listedIn list: String, keeping descriptor: FileDescriptor) -> Bool {
    // And no other descriptor: libcurl's socket to the server has no close-on-exec, and would
    // stay open as long as the deleting goes on. (glibc's addclosefrom_np is not in Swift's
    // Glibc; closing a descriptor that is not open, as the one that listed them, is no error.)
    let others = ((try? directoryNames("/proc/self/fd")) ?? []).compactMap { Int32($0) }.filter { $0 > 3 }
    let started = try? spawn(["/usr/bin/xargs", "-0", "-r", "-a", list, "/bin/rm", "-rf", "--"],
                             input: .devNull, output: .devNull, errors: .devNull, keeping: descriptor.raw, closing: others,
                             newSession: true)
    return started != nil
}

/// Where a spawned program's standard stream goes.
package enum StandardStream {
    case devNull
    /// This descriptor, copied (`dup2`, which clears close-on-exec on the copy).
    case descriptor(Int32)
}

/// Starts `argv` (its first word looked up in `PATH` unless it has a `/`) with its standard
/// input, output and error as given; `keeping` becomes its descriptor 3 (a lock it holds
/// while it runs); `closing` are closed in it; `environment` (`KEY=value`; `nil`: this
/// process's); in a new session (no controlling terminal) when `newSession`. Not waited
/// for: the caller reaps it (`waitFor`). The one door to `posix_spawnp(3)`.
package func spawn(
    _ argv: [String], input: StandardStream, output: StandardStream, errors: StandardStream, keeping: Int32? = nil,
    closing: [Int32] = [], environment: [String]? = nil, newSession: Bool
) throws(SubprocessError) -> pid_t {
    precondition(!argv.isEmpty, "a subprocess needs a program")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (standard, stream) in [(Int32(0), input), (1, output), (2, errors)] {
        switch stream {
        case .devNull: posix_spawn_file_actions_addopen(&actions, standard, "/dev/null", standard == 0 ? O_RDONLY : O_WRONLY, 0)
        case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, standard)
        }
    }
    if let keeping { posix_spawn_file_actions_adddup2(&actions, keeping, 3) }
    for descriptor in closing { posix_spawn_file_actions_addclose(&actions, descriptor) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    if newSession { posix_spawnattr_setflags(&attributes, posixSpawnSetSID) }
    let cArgv: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    let variables: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup($0) } + [nil] }
    defer {
        cArgv.forEach { free($0) }
        variables?.forEach { free($0) }
    }
    var pid: pid_t = 0
    let spawned = variables.map { posix_spawnp(&pid, argv[0], &actions, &attributes, cArgv, $0) }
        ?? posix_spawnp(&pid, argv[0], &actions, &attributes, cArgv, environ)
    guard spawned == 0 else { throw SubprocessError(systemErrorText(spawned)) }
    return pid
}

/// Why a subprocess could not be started.
package struct SubprocessError: Error {
    package var message: String
    init(_ message: String) { self.message = message }
}

/// `POSIX_SPAWN_SETSID` (glibc 2.26), which Glibc's module does not import.
let posixSpawnSetSID = Int16(0x80)

/// How a child ended, from `waitpid(2)`'s status (`WIFEXITED`/`WEXITSTATUS`/`WTERMSIG`
/// by hand: the macros do not import).
package enum WaitStatus: Equatable {
    case exited(Int32)
    case killed(signal: Int32)

    init(_ raw: Int32) {
        self = raw & 0x7F == 0 ? .exited((raw >> 8) & 0xFF) : .killed(signal: raw & 0x7F)
    }

    /// As a shell reports it: the exit status, or 128 + the signal.
    package var shellStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .killed(let signal): 128 + signal
        }
    }
}

/// Wraps `waitpid(2)`, retried on `EINTR`.
package func waitFor(_ pid: pid_t) -> WaitStatus {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        if errno != EINTR { return .killed(signal: 0) }
    }
    return WaitStatus(status)
}

/// Runs `argv` (its first word a path) in this process's session and terminal, with
/// this process's standard streams, and waits for it: an editor the user works in.
/// `nil` when it could not be started.
package func runInForeground(_ argv: [String]) -> WaitStatus? {
    precondition(!argv.isEmpty, "a program to run is needed")
    let cArgv: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { cArgv.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, argv[0], nil, nil, cArgv, environ) == 0 else { return nil }
    return waitFor(pid)
}

/// A new file only its owner can read (`mkstemps(3)`, 0600), named `prefix` + six random
/// characters + `suffix` in `directory`, which is made (0700) when missing.
package func makeTemporaryFile(in directory: String, prefix: String, suffix: String) throws -> FileDescriptor {
    try makeDirectories(directory)
    var template = Array((directory + "/" + prefix + "XXXXXX" + suffix).utf8CString)
    let descriptor = mkstemps(&template, Int32(suffix.utf8.count))
    let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard descriptor >= 0 else { throw OutboxError.system(tr("cannot create a file in"), path: directory, errno: errno) }
    return FileDescriptor(descriptor, path: path)
}

/// A new directory only its owner can enter (`mkdtemp(3)`), in `directory`.
package func makeTemporaryDirectory(in directory: String) throws -> String {
    try makeDirectories(directory)
    var template = Array((directory + "/XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else {
        throw OutboxError.system(tr("cannot create a directory in"), path: directory, errno: errno)
    }
    return String(cString: made)
}
