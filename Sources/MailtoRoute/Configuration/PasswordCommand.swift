#if canImport(Glibc)
import Glibc
#endif

/// Runs `password-command` (or msmtp's `passwordeval`) with `/bin/sh -c`, in a new session
/// with standard input from /dev/null, so it cannot read from or prompt on the terminal
/// mailto-route runs in. Its standard output, without the final line break, is the
/// password; on failure, its standard error is shown (the password never is).
public enum PasswordCommand {
    public static let timeoutSeconds: Double = 120

    static func run(_ command: String, source: String, timeout: Double = timeoutSeconds) throws(ConfigurationError) -> String {
        let process: Subprocess
        do {
            process = try Subprocess(["/bin/sh", "-c", command])
        } catch {
            throw ConfigurationError(tr("%@: cannot run password-command: %@", source, error.message))
        }
        let finished = process.finish(within: Int(timeout * 1000))
        if finished.status != 0 {
            var reason = finished.timedOut
                ? tr("gave no answer within %@ s; it may be waiting for input", timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout))
                : finished.status.map { tr("exited with status %@", $0) } ?? tr("was killed")
            let shown = finished.errorText
            if !shown.isEmpty { reason += ": " + shown }
            throw ConfigurationError(tr("%@: password-command failed (%@)", source, reason))
        }
        var password = finished.output
        if password.last == 0x0A { password.removeLast() }
        if password.last == 0x0D { password.removeLast() }
        guard !password.isEmpty else { throw ConfigurationError(tr("%@: password-command printed no password", source)) }
        return String(decoding: password, as: UTF8.self)
    }
}
