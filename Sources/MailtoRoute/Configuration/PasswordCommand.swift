#if canImport(Glibc)
import Glibc
#endif

/// Runs `password-command` (or msmtp's `passwordeval`) with `/bin/sh -c`, in a new session
/// with standard input from /dev/null, so it cannot read from or prompt on the terminal
/// mailto-route runs in. Its standard output, without the final line break, is the
/// password; on failure, its standard error is shown (the password never is).
enum PasswordCommand {
    static let timeoutSeconds: Int32 = 120

    static func run(_ command: String, source: String) throws(ConfigurationError) -> String {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            throw ConfigurationError("\(source): password-command: pipe: \(String(cString: strerror(errno)))")
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
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { for arg in argv { free(arg) } }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        close(outPipe[1])
        close(errPipe[1])
        defer {
            close(outPipe[0])
            close(errPipe[0])
        }
        guard spawned == 0 else {
            throw ConfigurationError("\(source): cannot run password-command: \(String(cString: strerror(spawned)))")
        }
        let (output, errors, timedOut) = collect(outPipe[0], errPipe[0])
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        if timedOut || !exited || code != 0 {
            var reason = timedOut ? "took more than \(timeoutSeconds) s" : (exited ? "exited with status \(code)" : "was killed")
            let shown = String(decoding: errors, as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " / ")
            if !shown.isEmpty { reason += ": " + shown }
            throw ConfigurationError("\(source): password-command failed (\(reason))")
        }
        var password = output
        if password.last == 0x0A { password.removeLast() }
        if password.last == 0x0D { password.removeLast() }
        guard !password.isEmpty else { throw ConfigurationError("\(source): password-command printed no password") }
        return String(decoding: password, as: UTF8.self)
    }

    /// Reads both pipes to their end (so neither can fill up), within the time limit.
    private static func collect(_ out: Int32, _ err: Int32) -> ([UInt8], [UInt8], Bool) {
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var open = [out, err]
        let deadline = time(nil) + Int(timeoutSeconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !open.isEmpty {
            let remaining = deadline - time(nil)
            if remaining <= 0 { return (output, errors, true) }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(remaining * 1000))
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { return (output, errors, ready == 0) }
            for entry in fds where entry.revents != 0 {
                let got = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if got > 0 {
                    if entry.fd == out { output += buffer[0..<got] } else if errors.count < 4096 { errors += buffer[0..<got] }
                } else if got == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        return (output, errors, false)
    }
}
