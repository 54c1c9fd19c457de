#if canImport(Glibc)
import Glibc
#endif
import MailtoRoute

/// `sending [#####.....] 12.3 of 100.0 MB` on standard error, redrawn in place, for a
/// message over 1 MB when a person watches (standard error is a terminal); nothing otherwise.
final class ProgressBar: @unchecked Sendable {
    static let threshold = 1_000_000
    /// Only touched from the sending thread (libcurl's callback) and, before and after
    /// the transfer, from the main thread.
    private var total = 0
    private var lastShown = -1
    private var drawn = false
    let isTerminal = isatty(STDERR_FILENO) == 1

    func prepare(total: Int) { self.total = total }

    func update(sent: Int, total: Int) {
        guard self.total > Self.threshold, isTerminal else { return }
        let permille = min(1000, sent * 1000 / max(self.total, 1))
        guard permille != lastShown else { return }
        lastShown = permille
        let filled = permille * 30 / 1000
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
        let done = Double(sent) / 1_000_000, whole = Double(self.total) / 1_000_000
        draw("\rsending [\(bar)] \(tenths(done)) of \(tenths(whole)) MB")
        drawn = true
    }

    func finish() {
        if drawn { draw("\r\u{1B}[K") }
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
