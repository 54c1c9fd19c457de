import SMTPTransport

// Undo send and Send later (docs/outbox.md, "Held messages"): a message the user sent is
// held in the outbox until its time, then goes as any queued message does. The outbox
// carries it, so it survives the sheet closing, a restart and a kill of whoever holds it:
// it is sent once, at its time or at the next flush after it, by whoever owns the outbox
// then; and Undo, under the entry's claim, takes it out before any attempt began, or not
// at all.

extension Session {
    /// Puts the message in the outbox held until `held.until`; `report` says where and
    /// until when, or why the outbox could not take it (then the caller keeps the message).
    func hold(_ submission: Submission, _ held: (hold: Hold, until: Timestamp), into report: inout RouteReport) {
        do {
            let entry = try storage.outbox.enqueue(
                try submission.queued(for: submission.recipients, server: submission.account.server.address),
                now: services.clock.now(), held: held)
            report.result = .queued
            report.outboxId = entry.id
            report.hold = held.hold
            report.notBefore = entry.nextAttempt
        } catch {
            report.result = .failed
            report.error = Failure(kind: .configuration,
                                   message: tr("could not put the message in the outbox: %@", Failure(error, otherwise: .permanent).message))
        }
    }

    /// Sends a held message now, under the claim its holder kept while Undo could take it
    /// back (the sheet, at the end of its Undo time): its attempt recorded first, as a
    /// flush records each (rule 9). What does not go now stays in the outbox for its owner
    /// to retry (`queued`), or moves to `failed/` when refused for good (`failed`, the
    /// entry's id in the report). The report is logged.
    ///
    /// `stop`: the person's Stop while it goes (`SendStop`), asked from another thread.
    /// Until the end of the message goes out, the entry first leaves the outbox unsent
    /// (`OutboxClaim.withdrawStopped`), then the connection is dropped: the report is
    /// `cancelled`, and the message is the sheet's again.
    public func sendHeld(_ claim: OutboxClaim, stop: SendStop? = nil) -> RouteReport {
        let entry = claim.entry
        var report = RouteReport(path: .direct, result: .queued)
        report.outboxId = entry.id
        report.messageId = entry.messageId
        report.account = entry.account
        report.server = entry.server
        let account: Account
        do {
            account = try self.account(forQueued: entry)
            if account.onlineAccount == nil { _ = try server(for: account) }
        } catch {
            // It stays held until its time and then due: whoever owns the outbox retries it.
            claim.release()
            report.error = Failure(error, otherwise: .configuration)
            log(report, source: .sheet)
            return report
        }
        report.account = account.name
        report.server = account.server.address
        var deliveries: [String: RouteReport] = [:]
        stop?.setBeforeStopping(claim.withdrawalOnStop)
        let flushed = storage.outbox.send(claim, now: services.clock.now()) { claim in
            try transmitQueued(claim, through: account, deliveries: &deliveries, stop: stop)
        }
        if let delivery = deliveries[entry.id] {
            report.reply = delivery.reply
            report.accepted = delivery.accepted
            report.refused = delivery.refused
            report.draft = delivery.draft
            report.warnings += delivery.warnings
        }
        report.error = flushed.error
        report.nextAttempt = flushed.nextAttempt
        switch flushed.outcome {
        case .sent:
            // Its outbox id stays in the report: what was told about it while held (a
            // notification with Undo) is replaced by what came of it.
            report.result = .sent
        case .rescheduled, .skipped:
            report.result = .queued
        case .withdrawn:
            report.result = .cancelled
            report.error = nil
            report.warnings.append(tr("Sending stopped before the mail server had the message: nothing was sent"))
        case .failed:
            report.result = .failed
            report.warnings.append(tr("the message is kept in the outbox's failed/ as %@ (mailto-route outbox show %@)", entry.id, entry.id))
        }
        if let problem = flushed.storeError { report.warnings.append("outbox: \(problem.description)") }
        log(report, source: .sheet)
        return report
    }
}
