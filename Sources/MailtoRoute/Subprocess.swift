#if canImport(Glibc)
import Glibc
#endif

/// A program run without a shell of ours and without a terminal: `posix_spawnp` in a new
/// session (no controlling terminal), standard input from /dev/null, standard output and
/// error through pipes. Started at once; `finish` collects it within a time limit, so a
/// caller can do other work while it runs (`--check` runs `xdg-mime` alongside the rest).
final class Subprocess {
    /// What a finished (or abandoned) program left.
    struct Finished {
        var output: [UInt8]
        /// At most 4 KiB of standard error.
        var errors: [UInt8]
        /// The exit status; `nil` when it was killed or did not finish in time.
        var status: Int32?
        var timedOut: Bool

        /// Standard error as one line, for a message.
        var errorText: String {
            String(decoding: errors, as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " / ")
        }
    }

    private let pid: pid_t
    private let output: Int32
    private let errors: Int32
    private var finished: Finished?

    /// Starts `argv` (its first word looked up in `PATH`). Throws the `errno` text when it
    /// cannot be started.
    init(_ argv: [String]) throws(SubprocessError) {
        precondition(!argv.isEmpty, "a subprocess needs a program")
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw SubprocessError("pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0])
            close(outPipe[1])
            throw SubprocessError("pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for descriptor in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, descriptor) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc 2.26): a new session has no controlling terminal.
        posix_spawnattr_setflags(&attributes, Int16(0x80))
        var pid: pid_t = 0
        let cArgv: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for arg in cArgv { free(arg) } }
        let spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, cArgv, environ)
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw SubprocessError(String(cString: strerror(spawned)))
        }
        self.pid = pid
        output = outPipe[0]
        errors = errPipe[0]
    }

    deinit {
        _ = finish(within: 0)
    }

    /// Reads both pipes to their end (so neither can fill up) and reaps the program; one
    /// still running after `milliseconds` is killed. Returns the same value when called again.
    func finish(within milliseconds: Int) -> Finished {
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
            if ready <= 0 {
                collected.timedOut = ready == 0
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
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        close(output)
        close(errors)
        if !collected.timedOut, status & 0x7F == 0 { collected.status = (status >> 8) & 0xFF }
        finished = collected
        return collected
    }
}

/// Why a subprocess could not be started.
struct SubprocessError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
