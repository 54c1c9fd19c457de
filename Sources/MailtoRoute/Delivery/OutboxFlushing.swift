import DesktopIntegration
import SMTPTransport

/// What one flush of the outbox came to: per message, and the server it went to.
public struct OutboxFlushResult: Sendable {
    /// `host:port`.
    public var server: String
    public var reports: [FlushReport]
    /// The server's last reply to each message tried, by entry id.
    public var replies: [String: String]

    /// Each message's report, on the `outbox` path (docs/design.md, Data model).
    public var routeReports: [RouteReport] {
        reports.map { flushed in
            var report = RouteReport(path: .outbox, result: flushed.outcome.result)
            report.server = server
            report.reply = replies[flushed.id]
            report.messageId = flushed.entry.messageId
            report.outboxId = flushed.id
            report.error = flushed.error
            if let problem = flushed.storeError { report.warnings.append("outbox: \(problem.description)") }
            return report
        }
    }
}

extension FlushReport.Outcome {
    /// The result as docs/design.md and the outcome log name it.
    public var result: RouteReport.Result {
        switch self {
        case .sent: .sent
        case .failed: .failed
        case .rescheduled, .skipped: .queued
        }
    }
}

extension Session {
    /// `outbox flush`, `outbox retry`, `outbox watch` and the quick flush: sends the queued
    /// entries `selecting` picks (by default those due now; with `allQueued`, every one:
    /// `Outbox.selection`), at most `limit`, over this run's one connection, and logs each
    /// outcome. Throws a configuration error, with every message still queued, when there
    /// is no account or it cannot be used now; once sending has begun, every problem is in
    /// the result. `nil`: nothing was selected, so no account was needed.
    ///
    /// `exiting`: the process ends after this flush (the command line), so the deletion
    /// of the sent messages' files is not waited for (`Outbox.flush`'s `trashInBackground`).
    public func flushOutbox(
        now: Timestamp = .now(), limit: Int = .max, allQueued: Bool = false, selecting: ((OutboxEntry) -> Bool)? = nil,
        exiting: Bool = false
    ) throws -> OutboxFlushResult? {
        var server: String?
        var replies: [String: String] = [:]
        let reports = try storage.outbox.flush(
            now: now, limit: limit, allQueued: allQueued, selecting: selecting, trashInBackground: exiting,
            prepare: { selected in server = try self.flushServer(for: selected) }
        ) { claim in
            let entry = claim.entry
            do {
                let sent = try transmit(Submission(
                    stored: .file(claim.messagePath), envelopeFrom: entry.envelopeFrom, recipients: entry.recipients,
                    messageId: entry.messageId, subject: entry.subject))
                replies[entry.id] = sent.receipt.reply
                // Queued again for those put off before this entry goes as sent; if that
                // failed, the entry stays (the others may get it twice: a duplicate, never a loss).
                if case .failure(let failure)? = sent.deferred { throw OutboxError(failure.kind, failure.message) }
            } catch let error as SMTPError {
                replies[entry.id] = error.reply
                throw error
            }
        }
        // No server: nothing was selected.
        guard let server else { return nil }
        let result = OutboxFlushResult(server: server, reports: reports, replies: replies)
        log(result.routeReports, source: .outbox)
        return result
    }

    /// The server a flush of `selected` goes to, its account and password ready; else the
    /// configuration error, every message staying queued, and logged as such.
    private func flushServer(for selected: [OutboxEntry]) throws -> String {
        do {
            guard configuration.hasAccount else {
                throw OutboxError(.configuration, "outbox flush needs a configured account ([account] in \(paths.configFile))")
            }
            return try smtp().server.address
        } catch {
            var unsent = RouteReport(path: .outbox, result: .queued)
            unsent.error = Failure(kind: .configuration, message: Failure(error, otherwise: .configuration).message)
            log(selected.map { entry in
                var report = unsent
                report.server = entry.server
                return report
            }, source: .outbox)
            let stay = selected.count == 1 ? "1 message stays" : "\(selected.count) messages stay"
            throw OutboxError(.configuration, "\(Failure(error, otherwise: .configuration).message); \(stay) queued")
        }
    }

    /// Tells the user, as a desktop notification, about each message a flush gave up on
    /// (refused for good, or still failing after five days: moved to `failed/`): a flush
    /// in the background (`outbox watch`, the quick flush of a click) has nobody else to
    /// tell, and the user would otherwise learn it only from `outbox list`.
    public func notifyGivenUp(_ reports: [FlushReport]) {
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
