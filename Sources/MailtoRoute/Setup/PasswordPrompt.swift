#if canImport(Glibc)
import Glibc
#endif

/// Reads a password a person types, as `getpass(3)` would but with a deadline: on the
/// terminal (`Terminal`), its echo turned off for the line and back on afterwards
/// (`tcgetattr`/`tcsetattr`), so that the password is seen nowhere and never in an argv.
public enum PasswordPrompt {
    /// Seconds to type it.
    public static let timeout: Double = 300

    /// The line typed after `prompt`; `nil` when there is no terminal, or on Ctrl-D or
    /// the deadline.
    public static func read(_ prompt: String, timeout: Double = timeout) -> String? {
        guard let terminal = Terminal.open() else { return nil }
        var saved = termios()
        let canHide = tcgetattr(terminal.descriptor, &saved) == 0
        if canHide {
            var hidden = saved
            hidden.c_lflag &= ~tcflag_t(ECHO)
            // ECHONL: the Enter still moves to the next line.
            hidden.c_lflag |= tcflag_t(ECHONL)
            guard tcsetattr(terminal.descriptor, TCSAFLUSH, &hidden) == 0 else { return nil }
        }
        defer { if canHide { tcsetattr(terminal.descriptor, TCSAFLUSH, &saved) } }
        terminal.write(prompt)
        switch terminal.readLine(seconds: timeout, limit: 4096) {
        case .text(let line): return line
        case .endOfInput, .timedOut:
            terminal.write("\n")
            return nil
        }
    }

    /// Standard input to its end, without the final line break (`--password-stdin`): at
    /// most 4 KB, `nil` when it could not be read.
    public static func readStandardInput() -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            bytes += buffer[..<count]
            if bytes.count > 4096 { return nil }
        }
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
