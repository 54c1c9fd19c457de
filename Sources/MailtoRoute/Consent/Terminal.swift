#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// The terminal a person answers on: `/dev/tty` (the controlling terminal, also when
/// standard input and output are redirected), or else standard input when it is a
/// terminal. Owns the descriptor it opened (`close` in `deinit`); never closes fd 0.
final class Terminal {
    let descriptor: Int32
    /// Where the prompt is written: the same terminal; for standard input, standard error
    /// when that is a terminal too (fd 0 may be open for reading only).
    private let output: Int32
    private let owned: Bool

    private init(descriptor: Int32, owned: Bool) {
        self.descriptor = descriptor
        self.owned = owned
        output = owned || isatty(STDERR_FILENO) != 1 ? descriptor : STDERR_FILENO
    }

    deinit {
        if owned { close(descriptor) }
    }

    /// Wraps `open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)`, then `isatty(0)`; `nil`
    /// when neither is a terminal (a clicked link: no controlling terminal), or when we are
    /// not in its foreground process group (`mailto-route open URL &`): reading it would
    /// stop the process with SIGTTIN until someone brings it back, a hang by another name.
    static func open() -> Terminal? {
        let descriptor = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        if descriptor >= 0 {
            if isForeground(descriptor) { return Terminal(descriptor: descriptor, owned: true) }
            close(descriptor)
        }
        return isForeground(STDIN_FILENO) ? Terminal(descriptor: STDIN_FILENO, owned: false) : nil
    }

    /// Wraps `isatty` and `tcgetpgrp(descriptor) == getpgrp()`.
    private static func isForeground(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1 && tcgetpgrp(descriptor) == getpgrp()
    }

    /// Writes all of `text` (`writeAll`: retried on `EINTR` and short writes); a terminal
    /// that went away is left to the read that follows to notice.
    func write(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { writeAll(output, $0) }
    }

    /// Drops what was typed before the question was shown (`tcflush(TCIFLUSH)`): a stray
    /// `s` pasted with a link must not answer a question the user has not seen.
    func discardTypeahead() {
        tcflush(descriptor, TCIFLUSH)
    }

    enum Line: Equatable {
        case text(String)
        case endOfInput
        case timedOut
    }

    /// Reads one line (without its line break) within `seconds`: `poll(2)` then
    /// `read(2)`. Keeps at most `limit` bytes of a line and drops the rest.
    func readLine(seconds: Double, limit: Int = 256) -> Line {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        let deadline = MonotonicClock.seconds + seconds
        while true {
            let left = deadline - MonotonicClock.seconds
            if left <= 0 { return .timedOut }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: Int(left * 1000) + 1))
            if ready < 0 {
                if errno == EINTR { continue }
                return .endOfInput
            }
            if ready == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .endOfInput
            }
            if count == 0 {
                return bytes.isEmpty ? .endOfInput : .text(String(decoding: bytes, as: UTF8.self))
            }
            for byte in buffer[..<count] {
                // "\r" too: a terminal left in raw mode sends it for Enter.
                if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                    return .text(String(decoding: bytes, as: UTF8.self))
                }
                if bytes.count < limit { bytes.append(byte) }
            }
        }
    }
}

/// What came of a question asked on the terminal.
enum TerminalAnswer<Value> {
    case chosen(Value)
    /// Ctrl-D, or the terminal went away.
    case endOfInput
    case timedOut
    /// Every attempt was an answer `choose` did not take.
    case notUnderstood
}

extension Terminal {
    /// Writes `prompt` and reads a line, until `choose` takes the answer (given as one
    /// lower-case word: spaces, tabs and CR removed), at most `attempts` times and all
    /// within `timeout` seconds; after an answer not taken, `retry` is written first.
    func ask<Value>(
        _ prompt: String, retry: String, attempts: Int, timeout: Double, choose: (String) -> Value?
    ) -> TerminalAnswer<Value> {
        let deadline = MonotonicClock.seconds + timeout
        for attempt in 1...attempts {
            write(prompt)
            switch readLine(seconds: deadline - MonotonicClock.seconds) {
            case .text(let answer):
                let word = answer.lowercased().filter { $0 != " " && $0 != "\t" && $0 != "\r" }
                if !word.isEmpty, let value = choose(word) { return .chosen(value) }
                if attempt < attempts { write(retry) }
            case .endOfInput:
                return .endOfInput
            case .timedOut:
                return .timedOut
            }
        }
        return .notUnderstood
    }
}
