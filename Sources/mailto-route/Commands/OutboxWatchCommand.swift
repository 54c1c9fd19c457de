import MailtoRoute

/// `mailto-route outbox watch`: stays running (the systemd user unit
/// `data/mailto-route-outbox.service` runs it) and sends what is queued: what is due at
/// start, everything queued when the network comes back, and each message at its next
/// attempt. Ends with exit 0 on SIGTERM or SIGINT, between two flushes.
enum OutboxWatchCommand {
    /// The longest sleep: messages other runs queue meanwhile are found this late at most.
    static let longestWait: Int64 = 60
    /// Network changes come in bursts (an interface, then its addresses and routes): the
    /// flush waits until they have settled this long.
    static let settleSeconds = 1.0

    static func run(json: Bool, output: Output) throws -> ExitStatus {
        let monitor = try NetworkMonitor()
        let outbox = Paths.current().storage.outbox
        if !json { output.error("mailto-route: watching \(outbox.directory) (SIGTERM or Ctrl-C stops)") }
        var everything = false
        while true {
            // Each flush is a run of its own: the account, its password and the server as
            // they are now (an account may be written, a password changed meanwhile).
            flushOnce(Session.current(), everything: everything, json: json, output: output)
            everything = false
            let wake = monitor.wait(seconds: Double(secondsUntilNextAttempt(outbox)))
            switch wake {
            case .stop(let signal):
                if !json { output.error("mailto-route: stopped by signal \(signal)") }
                return .success
            case .networkChanged:
                while case .networkChanged = monitor.wait(seconds: settleSeconds) {}
                if case .stop = monitor.wait(seconds: 0) { return .success }
                // Back-off was for a network that was gone: try everything now.
                everything = monitor.isNetworkAvailable
            case .timeout:
                break
            }
        }
    }

    /// One flush; its problems are printed, never the end of watching (an account may be
    /// written, a server may come back).
    private static func flushOnce(_ session: Session, everything: Bool, json: Bool, output: Output) {
        do {
            if let result = try session.flushOutbox(selecting: everything ? { _ in true } : nil) {
                OutboxCommand.print(result, json: json, output: output)
                session.notifyGivenUp(result.reports)
            }
        } catch {
            _ = report(error, to: output, json: json)
        }
    }

    /// Until the earliest next attempt of what is queued, at least 1 s, at most `longestWait`.
    private static func secondsUntilNextAttempt(_ outbox: Outbox) -> Int64 {
        let now = Timestamp.now()
        guard let next = (try? outbox.list())?.map(\.nextAttempt).min() else { return longestWait }
        return min(max(next.secondsSinceEpoch - now.secondsSinceEpoch, 1), longestWait)
    }
}
