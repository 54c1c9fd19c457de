#if canImport(Glibc)
import Glibc
#endif
import MailtoRoute
import Synchronization

/// `sending [#####.....] 12.3 of 100.0 MB` on standard error, redrawn in place, for a
/// message over 1 MB when a person watches (standard error is a terminal); nothing otherwise.
final class ProgressBar: Sendable {
    static let threshold = 1_000_000
    /// Written from the sending thread (libcurl's callback) and, before and after the
    /// transfer, from the main thread.
    private struct State {
        var total = 0
        var lastShown = -1
        var drawn = false
    }

    private let state = Mutex(State())
    let isTerminal = isatty(STDERR_FILENO) == 1

    func prepare(total: Int) { state.withLock { $0.total = total } }

    func update(sent: Int, total: Int) {
        guard isTerminal else { return }
        let line = state.withLock { state -> String? in
            guard state.total > Self.threshold else { return nil }
            let permille = min(1000, sent * 1000 / max(state.total, 1))
            guard permille != state.lastShown else { return nil }
            state.lastShown = permille
            state.drawn = true
            let filled = permille * 30 / 1000
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
            let done = Double(sent) / 1_000_000, whole = Double(state.total) / 1_000_000
            return "\r" + tr("sending [%@] %@ of %@ MB", bar, tenths(done), tenths(whole))
        }
        if let line { draw(line) }
    }

    func finish() {
        if state.withLock({ $0.drawn }) { draw("\r\u{1B}[K") }
    }

    private func tenths(_ value: Double) -> String {
        let scaled = Int(value * 10)
        return "\(scaled / 10).\(scaled % 10)"
    }

    private func draw(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }
}
