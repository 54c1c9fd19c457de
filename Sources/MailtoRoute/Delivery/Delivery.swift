import MIMEMessage
import SMTPTransport

/// One message on its way to the server: built now (streamed as it is sent), or stored (a
/// draft's bytes, an outbox entry's file) and sent as it is, Message-ID and all.
struct Submission {
    enum Content {
        case built(OutgoingMessage)
        case stored(RawMessage.Content)
    }

    var content: Content
    var envelopeFrom: String
    var recipients: [String]
    var messageId: String?
    var subject: String?
    /// The account it goes through; a queued copy is retried through it.
    var account: Account
    /// `RawMessage.beforeEnd` of a stored message: an outbox flush's wait for the message
    /// before to be out of the outbox.
    var beforeEnd: (@Sendable () throws -> Void)?
    /// A person's Stop while it is sent (`RouteRequest.stop`).
    var stop: SendStop?

    init(_ message: OutgoingMessage, subject: String?, account: Account) {
        content = .built(message)
        envelopeFrom = message.from.asciiAddress
        recipients = message.recipients.map(\.asciiAddress)
        messageId = message.messageID
        self.subject = subject
        self.account = account
    }

    init(stored: RawMessage.Content, envelopeFrom: String, recipients: [String], messageId: String?, subject: String?,
         account: Account, beforeEnd: (@Sendable () throws -> Void)? = nil) {
        content = .stored(stored)
        self.beforeEnd = beforeEnd
        self.envelopeFrom = envelopeFrom
        self.recipients = recipients
        self.messageId = messageId
        self.subject = subject
        self.account = account
    }

    /// The whole message, for the outbox.
    func bytes() throws -> [UInt8] {
        switch content {
        case .built(let message): try message.makeStream().readAll()
        case .stored(.bytes(let bytes)): bytes
        case .stored(.file(let path)): try MessageStream(messageFile: path).readAll()
        }
    }

    /// This message as a draft addressed to `recipients` alone: its own To, Cc and Bcc
    /// fields give way to one To field naming them.
    func draft(for recipients: [String]) throws -> [UInt8] {
        let whole = try bytes()
        let header = HeaderSection(whole)
        let kept = header.fields.filter { !["to", "cc", "bcc"].contains($0.name) }.flatMap(\.raw)
        return Array("To: \(recipients.joined(separator: ", "))\r\n".utf8) + kept + [0x0D, 0x0A] + whole[header.bodyStart...]
    }

    /// This message for `recipients` only, as the outbox keeps it.
    func queued(for recipients: [String], server: String?) throws -> OutboxMessage {
        OutboxMessage(bytes: try bytes(), envelopeFrom: envelopeFrom, recipients: recipients, messageId: messageId,
                      server: server, subject: subject, account: account.name)
    }
}

/// What the submit step leaves to its caller.
enum SubmitOutcome {
    /// A server has it, or the outbox does: nothing more to keep.
    case delivered
    /// Part or all of it is in neither place: the caller keeps the message (a draft).
    case keep
}

// MARK: - The one submit step

extension Session {
    /// Sends `submission` over the run's one connection. What the server put off for some
    /// recipients (4xx to their RCPT) is queued again for them alone, the same bytes and
    /// Message-ID (docs/design.md rule 3), so that the others do not get it twice: `deferred`
    /// says where, or why the outbox could not take it. Throws the server's refusal, or why
    /// no connection can be made.
    func transmit(_ submission: Submission, progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> Transmitted {
        let smtp = try smtp(for: submission.account)
        let receipt: SMTPReceipt
        do {
            receipt = switch submission.content {
            case .built(let message): try smtp.send(message, progress: progress, stop: submission.stop)
            case .stored(let content):
                try smtp.send(RawMessage(content, envelopeFrom: submission.envelopeFrom, recipients: submission.recipients,
                                         beforeEnd: submission.beforeEnd), stop: submission.stop)
            }
        } catch {
            throw failure(error, through: submission.account)
        }
        sent(through: submission.account)
        // Refused for good while the others got it: a draft addressed to them keeps their
        // copy, for the user to correct the address and send again (rule 3); where no draft
        // can be written, the outbox's failed/ keeps it (never sent again on its own).
        let refused = receipt.refused.filter { $0.reply.hasPrefix("5") }
        let refusedCopy = refused.isEmpty ? nil : keepCopy(of: submission, for: refused, server: smtp.server.address)
        let deferred = receipt.refused.filter { $0.reply.hasPrefix("4") }
        guard !deferred.isEmpty else { return Transmitted(receipt: receipt, deferred: nil, refusedCopy: refusedCopy) }
        let names = deferred.map(\.address).joined(separator: ", ")
        let queued = Result {
            try storage.outbox.enqueue(
                try submission.queued(for: deferred.map(\.address), server: smtp.server.address),
                failedAttempt: Failure(kind: .transient, message: deferred.map { "\($0.address): \($0.reply)" }.joined(separator: "; ")))
        }
        return Transmitted(receipt: receipt, deferred: queued.map { entry in
            (entry.id, tr("the server put off %@ for now: queued in the outbox as %@ for them", names, entry.id))
        }.mapError { error in
            Failure(kind: .configuration, message: tr("could not queue the message for %@, whom the server put off: %@", names, Failure(error, otherwise: .permanent).message))
        }, refusedCopy: refusedCopy)
    }

    /// The copy of `submission` for the recipients the server `refused` for good: a draft
    /// addressed to them, else an entry in the outbox's failed/; or why it is in neither.
    private func keepCopy(of submission: Submission, for refused: [RefusedRecipient], server: String) -> Result<RefusedCopy, Failure> {
        let addresses = refused.map(\.address)
        let draftFailure: Failure
        do {
            return .success(.draft(try storage.drafts.save(try submission.draft(for: addresses)).path))
        } catch {
            draftFailure = Failure(error, otherwise: .permanent)
        }
        let refusal = Failure(kind: .permanent, message: refused.map { "\($0.address): \($0.reply)" }.joined(separator: "; "))
        do {
            let entry = try storage.outbox.enqueue(try submission.queued(for: addresses, server: server), failedAttempt: refusal,
                                                   state: .failed)
            return .success(.failed(entry.id, draftFailure: draftFailure.message))
        } catch {
            return .failure(Failure(kind: .permanent, message: tr("the copy for %@, whom the server refused, could not be saved as a "
                + "draft (%@) nor kept in the outbox: %@", addresses.joined(separator: ", "), draftFailure.message,
                Failure(error, otherwise: .permanent).message)))
        }
    }

    /// Where the copy for recipients refused for good is kept.
    enum RefusedCopy {
        /// A draft addressed to them, at this path.
        case draft(String)
        /// No draft could be written (why): an entry of the outbox's failed/, this id.
        case failed(String, draftFailure: String)
    }

    /// What `transmit` came to.
    struct Transmitted {
        var receipt: SMTPReceipt
        /// The outbox entry and the warning for the recipients put off; or why they are in
        /// no outbox.
        var deferred: Result<(id: String, warning: String), Failure>?
        /// Where the copy for the recipients refused for good is kept, or why it is nowhere.
        var refusedCopy: Result<RefusedCopy, Failure>?
    }

    /// The submit step every send shares (a message, a draft): sent; or, when the server
    /// cannot take it now, queued in the outbox; or failed. Fills `report` (server, reply,
    /// recipients accepted and refused, outbox id, error) and says whether the caller must
    /// keep the message, because neither a server nor the outbox has all of it.
    func submit(
        _ submission: Submission, into report: inout RouteReport, progress: (@Sendable (Int, Int) -> Void)? = nil
    ) -> SubmitOutcome {
        let sent: Transmitted
        do {
            sent = try transmit(submission, progress: progress)
        } catch {
            report.error = Failure(error, otherwise: .permanent)
            // An account of GNOME Online Accounts that must be signed in again, or whose
            // credentials cannot be had now: the message waits in the outbox (rule 3).
            if error is AccountHeld { return queue(submission, into: &report) }
            guard let error = error as? SMTPError else { return .keep }
            report.reply = error.reply
            // The person stopped it: nothing was sent, and nothing is queued behind their back.
            if error.cause == .stopped {
                report.result = .cancelled
                return .keep
            }
            return error.kind == .transient ? queue(submission, into: &report) : .keep
        }
        return note(sent, in: &report)
    }

    /// What a server's taking of a message came to, in `report`: sent, who got it, who
    /// was refused (each said), the draft for those refused for good, the outbox entry for
    /// those put off. `.keep` when a copy for some recipients is in neither a draft nor
    /// the outbox: the caller keeps the message.
    func note(_ sent: Transmitted, in report: inout RouteReport) -> SubmitOutcome {
        var outcome = SubmitOutcome.delivered
        report.result = .sent
        report.reply = sent.receipt.reply
        report.accepted = sent.receipt.accepted
        report.refused = sent.receipt.refused.map { RouteReport.Refusal(address: $0.address, reply: $0.reply) }
        for refusal in sent.receipt.refused {
            report.warnings.append(tr("the server refused %@: %@", refusal.address, refusal.reply))
        }
        let refusedNames = report.refusedForGood.map(\.address).joined(separator: ", ")
        switch sent.refusedCopy {
        case .success(.draft(let path))?:
            report.draft = path
            report.warnings.append(tr("the message is saved as a draft addressed to %@, whom the server refused", refusedNames))
        case .success(.failed(let id, let draftFailure))?:
            report.warnings.append(tr("the copy for %@, whom the server refused, could not be saved as a draft (%@): it is kept "
                + "in the outbox's failed/ as %@", refusedNames, draftFailure, id))
        case .failure(let failure)?:
            report.warnings.append(failure.message)
            outcome = .keep
        case nil:
            break
        }
        switch sent.deferred {
        case .success(let queued)?:
            report.outboxId = queued.id
            report.warnings.append(queued.warning)
        case .failure(let failure)?:
            report.warnings.append(failure.message)
            outcome = .keep
        case nil:
            break
        }
        return outcome
    }

    /// A transient failure: into the outbox, to be retried with the same Message-ID.
    private func queue(_ submission: Submission, into report: inout RouteReport) -> SubmitOutcome {
        do {
            let entry = try storage.outbox.enqueue(try submission.queued(for: submission.recipients, server: report.server),
                                                   now: services.clock.now(), failedAttempt: report.error)
            report.result = .queued
            report.outboxId = entry.id
            report.nextAttempt = entry.nextAttempt
            return .delivered
        } catch {
            report.warnings.append(tr("could not put the message in the outbox: %@", Failure(error, otherwise: .permanent).message))
            return .keep
        }
    }
}

// MARK: - The outcome log

extension Outcome {
    /// The log's line for `report`: never a body, a subject or a password.
    init(_ report: RouteReport, source: RouteRequest.Source) {
        self.init(source: source.rawValue, path: report.path.rawValue, result: report.result.rawValue,
                  handler: report.handler?.id, server: report.server, account: report.account, errorKind: report.error?.kind,
                  warnings: report.warnings, errorCause: report.error?.cause, errorDetail: report.error?.detail,
                  outboxId: report.outboxId, hold: report.result == .queued ? report.hold : nil, mailbox: report.mailbox)
        arrival = report.arrival?.kind.rawValue
        requestedBy = report.arrival?.requester
    }
}

extension Session {
    /// Appends each report to the outcome log. The log is for looking back: failing to
    /// write it changes nothing that happened.
    public func log(_ reports: [RouteReport], source: RouteRequest.Source) {
        try? storage.outcomeLog.append(contentsOf: reports.map { Outcome(arrived($0, source: source), source: source) })
    }

    /// `report` with how this session's request arrived, unless it says so itself or is
    /// an outbox flush's (another message's, which arrived before).
    public func arrived(_ report: RouteReport, source: RouteRequest.Source) -> RouteReport {
        guard report.arrival == nil, source != .outbox, let arrival else { return report }
        var report = report
        report.arrival = arrival
        return report
    }

    public func log(_ report: RouteReport, source: RouteRequest.Source) {
        log([report], source: source)
    }
}
