import DesktopIntegration
import SMTPTransport

/// What one flush of the outbox came to: per message, the account and server it went to.
public struct OutboxFlushResult: Sendable {
    /// `host:port` of the first account it went through (the only one, usually).
    public var server: String
    public var reports: [FlushReport]
    /// What the server said of each message tried, by entry id (`transmitQueued`): its
    /// last reply, and where it took the message, who got it and who was refused.
    public var deliveries: [String: RouteReport]
    /// The account (its name) and `host:port` each message went through, by entry id.
    public var accounts: [String: (name: String, server: String)] = [:]

    /// The server message `id` went to.
    public func server(of id: String) -> String { accounts[id]?.server ?? server }

    /// Each message's report, on the `outbox` path (docs/design.md, Data model).
    public var routeReports: [RouteReport] {
        reports.map { flushed in
            var report = deliveries[flushed.id] ?? RouteReport(path: .outbox, result: flushed.outcome.result)
            report.path = .outbox
            report.result = flushed.outcome.result
            report.server = server(of: flushed.id)
            report.account = accounts[flushed.id]?.name ?? flushed.entry.account
            report.messageId = flushed.entry.messageId
            report.outboxId = flushed.id
            // Whom it was for: a notification about it says so ("Sent to …").
            if report.to.isEmpty { report.to = flushed.entry.recipients }
            report.error = flushed.error
            report.nextAttempt = flushed.nextAttempt
            if let problem = flushed.storeError { report.warnings.append(tr("outbox: %@", problem.description)) }
            return report
        }
    }
}

extension FlushReport.Ending {
    /// The result as docs/design.md and the outcome log name it.
    public var result: RouteReport.Result {
        switch self {
        case .sent: .sent
        case .failed: .failed
        case .rescheduled, .skipped: .queued
        case .withdrawn: .cancelled
        }
    }
}

extension Session {
    /// `outbox flush`, `outbox retry`, `outbox watch` and the quick flush: sends the queued
    /// entries `selecting` picks (by default those due now; with `allQueued`, every one:
    /// `Outbox.selection`), at most `limit`, each through the account it was queued for
    /// (the default one for an entry that names none), one connection per account for the
    /// run, and logs each outcome. Entries whose account cannot be used now (it is gone, or
    /// its password cannot be had) stay queued as they are, logged with the reason; when
    /// that is every one, it throws the configuration error. Once sending has begun, every
    /// problem is in the result. `nil`: nothing was selected, so no account was needed.
    ///
    /// `exiting`: the process ends after this flush (the command line), so the deletion
    /// of the sent messages' files is not waited for (`Outbox.flush`'s `trashInBackground`).
    public func flushOutbox(
        now: Timestamp? = nil, limit: Int = .max, allQueued: Bool = false, selecting: ((OutboxEntry) -> Bool)? = nil,
        exiting: Bool = false
    ) throws -> OutboxFlushResult? {
        let now = now ?? services.clock.now()
        // Each account the selected entries go through, ready (its password had): found
        // from the flush's own listing (one read of the outbox, not two), before anything
        // is claimed.
        var ready: [String: Account] = [:]
        var first: Account?
        var deliveries: [String: RouteReport] = [:]
        var through: [String: (name: String, server: String)] = [:]
        let reports = try storage.outbox.flush(
            now: now, limit: limit, allQueued: allQueued, selecting: selecting, trashInBackground: exiting,
            prepare: { selected in
                (ready, first) = try self.flushAccounts(for: selected)
                return { ready[$0.account ?? ""] != nil }
            }
        ) { claim in
            let entry = claim.entry
            guard let account = ready[entry.account ?? ""] else {
                throw OutboxError(.configuration, tr("its account is not set up now"))
            }
            through[entry.id] = (account.name, account.server.address)
            try transmitQueued(claim, through: account, deliveries: &deliveries)
        }
        // No account was looked for: nothing was selected.
        guard let first else { return nil }
        var result = OutboxFlushResult(server: first.server.address, reports: reports, deliveries: deliveries)
        result.accounts = through
        log(result.routeReports, source: .outbox)
        return result
    }

    /// The accounts a flush of `selected` goes through, each ready (its password had), by
    /// name (`""`: the default), and the first selected entry's. Those that cannot be used
    /// now are logged, their messages staying queued; when none can, the configuration error.
    private func flushAccounts(for selected: [OutboxEntry]) throws -> (ready: [String: Account], first: Account) {
        var ready: [String: Account] = [:]
        var unusable: [String: String] = [:]
        for name in Set(selected.map { $0.account ?? "" }) {
            do {
                let account = name.isEmpty ? try defaultAccount() : try accountForQueued(name)
                // A password obtained now, before anything is claimed: a password command
                // that fails leaves every message as it was. GNOME Online Accounts'
                // credentials are the attempt's own (a message that cannot have them waits).
                if account.onlineAccount == nil { _ = try server(for: account) }
                ready[name] = account
            } catch {
                unusable[name] = Failure(error, otherwise: .configuration).message
            }
        }
        if !unusable.isEmpty {
            log(selected.compactMap { entry in
                guard let problem = unusable[entry.account ?? ""] else { return nil }
                var report = RouteReport(path: .outbox, result: .queued)
                report.server = entry.server
                report.account = entry.account
                report.error = Failure(kind: .configuration, message: problem)
                return report
            }, source: .outbox)
        }
        guard let first = selected.lazy.compactMap({ ready[$0.account ?? ""] }).first else {
            let problems = Set(unusable.values).sorted().joined(separator: "; ")
            throw OutboxError(.configuration, (hasAnyAccount ? problems
                : tr("outbox flush needs a configured account ([account] in %@, ~/.msmtprc or Settings, Online Accounts)", paths.configFile))
                + "; " + trn("%@ message stays queued", "%@ messages stay queued", selected.count, selected.count))
        }
        return (ready, first)
    }

    /// Sends a claimed entry's message as it was queued (same bytes, Message-ID and
    /// envelope) through `account`; what the server said of it in `deliveries` (its reply;
    /// once it took the message, who got it, who was refused and the draft that keeps
    /// their copy). Throws when the server did not take it, and when a copy it did not take
    /// for some recipients is kept nowhere: then the entry stays queued (others may get it
    /// twice: a duplicate, never a loss).
    func transmitQueued(_ claim: OutboxClaim, through account: Account, deliveries: inout [String: RouteReport],
                        stop: SendStop? = nil) throws {
        let entry = claim.entry
        let sent: Transmitted
        do {
            var submission = Submission(
                stored: claim.messageRead.map { .bytes($0) } ?? .file(claim.messagePath), envelopeFrom: entry.envelopeFrom, recipients: entry.recipients,
                messageId: entry.messageId, subject: entry.subject, account: account, beforeEnd: claim.beforeAcceptance)
            submission.stop = stop
            sent = try transmit(submission)
        } catch let error as SMTPError {
            var report = RouteReport(path: .outbox, result: .failed)
            report.reply = error.reply
            deliveries[entry.id] = report
            throw error
        }
        var report = RouteReport(path: .outbox, result: .sent)
        let outcome = note(sent, in: &report)
        // The entry's own id is the report's; one the put-off recipients were queued in is said.
        report.outboxId = nil
        deliveries[entry.id] = report
        guard outcome == .keep else { return }
        // A copy for some recipients in no outbox entry and no draft (neither could be
        // written): the entry stays queued, to be tried again later.
        if case .failure(let failure)? = sent.deferred { throw OutboxError(failure.kind, failure.message) }
        if case .failure(let failure)? = sent.refusedCopy { throw OutboxError(.configuration, failure.message) }
    }

    /// The account a queued entry goes through: the one it names, else the default.
    func account(forQueued entry: OutboxEntry) throws(ConfigurationError) -> Account {
        guard let name = entry.account, !name.isEmpty else { return try defaultAccount() }
        return try accountForQueued(name)
    }

    /// Whether any account is set up at all (the files' or GNOME Online Accounts').
    var hasAnyAccount: Bool { configuration.hasAccount || !accounts.isEmpty }

    /// The account a queued message names, usable: it may have gone since it was queued
    /// (an account of GNOME Online Accounts removed); the message then waits for it.
    private func accountForQueued(_ name: String) throws(ConfigurationError) -> Account {
        guard let setup = configuration.accounts.first(where: { $0.name == name }) ?? accounts.first(where: { $0.name == name }) else {
            throw ConfigurationError(tr("the account '%@' it was queued for is not set up now", name))
        }
        return try setup.account.get()
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
            return tr("%@ to %@: %@", entry.subject ?? tr("(no subject)"), entry.recipients.joined(separator: ", "),
                      report.error?.message ?? entry.lastError?.message ?? tr("not sent"))
        } + [tr("The messages are kept: mailto-route outbox list")]
        // No notification server: the outcome log and `outbox list` still say it.
        try? services.notifier.show(
            summary: trn("%@ message could not be sent and moved to the outbox's failed/",
                         "%@ messages could not be sent and moved to the outbox's failed/", failed.count, failed.count),
            details: details, urgent: true)
    }
}
