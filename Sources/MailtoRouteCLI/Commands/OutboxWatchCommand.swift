import MailtoRoute

/// `mailto-route outbox watch`: stays running (the systemd user unit
/// `data/mailto-route-outbox.service` runs it) and sends what is queued: what is due at
/// start, everything queued when the network comes back, and each message at its next
/// attempt. A flush that fails as a whole (the outbox cannot record an attempt, no
/// account) holds the next one back, exponentially (`FlushBackoff`). Ends with exit 0 on
/// SIGTERM or SIGINT, between two flushes.
enum OutboxWatchCommand {
    /// The longest sleep: messages other runs queue meanwhile are found this late at most.
    static let longestWait: Int64 = 60
    /// Network changes come in bursts (an interface, then its addresses and routes): the
    /// flush waits until they have settled this long.
    static let settleSeconds = 1.0

    static func run(json: Bool, context: Context) throws -> ExitStatus {
        let output = context.output
        let monitor = try NetworkMonitor()
        let outbox = context.paths.storage.outbox
        if !json { output.error("mailto-route: watching \(outbox.directory) (SIGTERM or Ctrl-C stops)") }
        var everything = false
        var backoff = FlushBackoff(policy: outbox.policy)
        while true {
            // Each flush is a run of its own: the account, its password and the server as
            // they are now (an account may be written, a password changed meanwhile).
            if backoff.allowsFlush() {
                let succeeded = flushOnce(context.session(), everything: everything, json: json, output: output)
                backoff.record(flushFailed: !succeeded)
                everything = false
            }
            let earliest = (try? outbox.list())?.map(\.nextAttempt).min()
            let wake = monitor.wait(seconds: Double(backoff.secondsToWait(nextAttempt: earliest, longest: longestWait)))
            switch wake {
            case .stop(let signal):
                if !json { output.error("mailto-route: stopped by signal \(signal)") }
                return .success
            case .networkChanged:
                while case .networkChanged = monitor.wait(seconds: settleSeconds) {}
                if case .stop = monitor.wait(seconds: 0) { return .success }
                // Back-off was for a network that was gone: try everything now (or once
                // the outbox's own back-off allows a flush).
                if monitor.isNetworkAvailable { everything = true }
            case .timeout:
                break
            }
        }
    }

    /// One flush; its problems are printed, never the end of watching (an account may be
    /// written, a server may come back, a disk may be freed). `false`: it failed as a
    /// whole (it threw, or stopped because the outbox could not record an attempt).
    private static func flushOnce(_ session: Session, everything: Bool, json: Bool, output: Output) -> Bool {
        do {
            guard let result = try session.flushOutbox(allQueued: everything) else { return true }
            OutboxCommand.print(result, json: json, output: output)
            session.notifyGivenUp(result.reports)
            return OutboxCommand.reportStop(of: result, output: output) == nil
        } catch {
            _ = report(error, to: output, json: json)
            return false
        }
    }
}
