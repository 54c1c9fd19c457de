public import DesktopIntegration

/// What `outbox watch` waits on between flushes: GIO's network monitor, SIGTERM and
/// SIGINT, a deadline.
public typealias OutboxWakeMonitor = DesktopIntegration.NetworkMonitor

/// What one flush of the outbox came to: per message, and the server it went to.
public struct OutboxFlushResult: Sendable {
    /// `host:port`.
    public var server: String
    public var reports: [FlushReport]
    /// The server's last reply to each message tried, by entry id.
    public var replies: [String: String]
}

extension FlushReport.Outcome {
    /// The result as DESIGN.md and the outcome log name it: `sent`, `queued`, `failed`.
    public var result: String {
        switch self {
        case .sent: "sent"
        case .failed: "failed"
        case .rescheduled, .skipped: "queued"
        }
    }
}

/// `outbox flush`, `outbox retry` and `outbox watch`: send what is selected over the
/// configured account, one connection, and log each outcome.
public enum OutboxFlushing {
    /// Sends the queued entries `selecting` picks (by default those due at `now`; with
    /// `allQueued`, every one: `Outbox.selection`). Throws
    /// a configuration error, with every message still queued, when there is no account
    /// or it cannot be used now; once sending has begun, every problem is in the result.
    /// `nil`: nothing was selected, so no account was needed.
    public static func run(
        _ locations: StorageLocations, now: Timestamp = .now(), allQueued: Bool = false, selecting: ((OutboxEntry) -> Bool)? = nil
    ) throws -> OutboxFlushResult? {
        let outbox = locations.outbox
        let selected = try outbox.selected(now: now, allQueued: allQueued, selecting: selecting)
        guard !selected.isEmpty else { return nil }
        let log = locations.outcomeLog
        let sender: OutboxSender
        do {
            guard let configured = try OutboxSender.configured() else {
                throw OutboxError(
                    .configuration,
                    "outbox flush needs a configured account ([account] in \(AccountConfiguration.configPath)); \(selected.count) message(s) stay queued"
                )
            }
            sender = configured
        } catch {
            try? log.append(contentsOf: selected.map {
                Outcome(source: "outbox", path: "outbox", result: "queued", server: $0.server, errorKind: .configuration)
            })
            if let error = error as? OutboxError { throw error }
            let text = (error as? any ClassifiedError)?.description ?? "\(error)"
            throw OutboxError(.configuration, "\(text); \(selected.count) message(s) stay queued")
        }
        let reports = try outbox.flush(now: now, allQueued: allQueued, selecting: selecting, send: sender.send)
        try? log.append(contentsOf: reports.map {
            Outcome(source: "outbox", path: "outbox", result: $0.outcome.result, server: sender.serverAddress, errorKind: $0.error?.kind)
        })
        return OutboxFlushResult(server: sender.serverAddress, reports: reports, replies: sender.replies)
    }
}

extension OutboxFlushing {
    /// Tells the user, as a desktop notification, about each message a flush gave up on
    /// (refused for good, or still failing after five days: moved to `failed/`): a flush
    /// in the background (`outbox watch`, the quick flush of a click) has nobody else to
    /// tell, and the user would otherwise learn it only from `outbox list`.
    public static func notifyGivenUp(_ reports: [FlushReport]) {
        let failed = reports.filter { $0.outcome == .failed }
        guard !failed.isEmpty else { return }
        let details = failed.map { report in
            let entry = report.entry
            return "\(entry.subject ?? "(no subject)") to \(entry.recipients.joined(separator: ", ")): "
                + (report.error?.message ?? entry.lastError?.message ?? "not sent")
        } + ["The messages are kept: mailto-route outbox list"]
        // No notification server: the outcome log and `outbox list` still say it.
        try? showReportNotification(
            summary: "\(failed.count) message\(failed.count == 1 ? "" : "s") could not be sent and moved to the outbox's failed/",
            details: details, urgent: true)
    }
}
