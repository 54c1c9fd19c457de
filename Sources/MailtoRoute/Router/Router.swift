#if canImport(Glibc)
import Glibc
#endif
import MIMEMessage
import SMTPTransport

/// The heart of mailto-route: every message takes a path, and the report says which and
/// what came of it (DESIGN.md, The flow). Everything it decides on is read at the moment
/// of routing, never cached: the account, its password, the policy, the mail program.
public enum Router {
    /// What a message would be done with, before anything is done: the decision alone,
    /// from the facts of the moment (also what `--check` describes).
    public enum Decision: Equatable, Sendable {
        /// Send over the account now.
        case direct
        /// Ask the user (a link under `policy=ask`), then send, hand off, save or cancel.
        case askThenDirect
        /// Give it to the mail program.
        case handoff
        /// Save it as a draft: no path is available.
        case draft
        /// The forced path cannot be taken (its reason); the message is saved instead.
        case impossible(ErrorKind, String)
    }

    /// The decision for a message from `source`, given the facts of the moment.
    ///
    /// `accountProblem` is why the account cannot send now (`nil`: it can);
    /// `accountConfigured` whether there is one at all, usable or not.
    public static func decide(
        source: RouteRequest.Source, forcedPath: RouteRequest.ForcedPath?, policy: LinkPolicy,
        accountConfigured: Bool, accountProblem: String?, hasHandler: @autoclosure () -> Bool
    ) -> Decision {
        let accountUsable = accountConfigured && accountProblem == nil
        switch forcedPath {
        case .direct:
            guard accountUsable else { return .impossible(.configuration, "cannot send directly: \(accountProblem ?? "")") }
            // A forced direct send of a link is still a link: consent first, unless the
            // user's own policy is standing consent (rule 1).
            return source == .link && policy != .direct ? .askThenDirect : .direct
        case .handoff:
            return hasHandler() ? .handoff : .impossible(.permanent, "cannot hand off")
        case .draft:
            return .draft
        case nil:
            break
        }
        if source != .link {
            // A script that asked to send learns that its account is broken, rather than
            // finding its message handed to a mail program; the message is kept.
            if accountConfigured, let accountProblem { return .impossible(.configuration, accountProblem) }
            return accountUsable ? .direct : hasHandler() ? .handoff : .draft
        }
        guard accountUsable, policy != .handoff else { return hasHandler() ? .handoff : .draft }
        return policy == .direct ? .direct : .askThenDirect
    }

    /// Routes one message to its end: sent, queued, handed off, saved, cancelled or
    /// failed, and never lost: whatever could not be sent or handed off is in the outbox
    /// or saved as a draft, and the report says where (rule 3).
    public static func route(_ request: RouteRequest) -> RouteReport {
        var context = Context(request: request)
        var report = context.run()
        report.warnings = context.warnings + report.warnings
        context.log(report)
        return report
    }
}

/// One routing: the facts read at its start, the warnings gathered on the way.
private struct Context {
    let request: RouteRequest
    var email: EmailData { request.email }
    var warnings: [String] = []
    var account: Account?
    /// An account is set up, whether or not it works now.
    var accountConfigured = false
    var server: SMTPServer?
    var accountProblem: String?
    var settings = RouteSettings()
    /// Where a handoff would go, chosen once per routing; `nil` with `handlerProblem`.
    var destination: Handoff.Destination?
    var handlerProblem = "no mail program is set up"
    var destinationLookedUp = false
    var policy: LinkPolicy { settings.policy }

    init(request: RouteRequest) {
        self.request = request
        // Rule 2: each hfield not taken is named.
        warnings = request.email.dropped.map(\.warning)
    }

    mutating func run() -> RouteReport {
        // A broken [route] group is read as policy=handoff, keeping its handler=.
        settings = RouteSettings.configured()
        if let error = settings.error {
            warnings.append("\(error.message); links are handed off until it is fixed")
        }
        // A link under policy=handoff is never sent: its password is not asked for (a
        // password command may pop up a keyring prompt).
        readAccount(withPassword: !(request.source == .link && policy == .handoff && request.forcedPath == nil)
            && request.forcedPath != .draft)
        let decision = Router.decide(
            source: request.source, forcedPath: request.forcedPath, policy: policy,
            accountConfigured: accountConfigured, accountProblem: accountProblem, hasHandler: findDestination())
        switch decision {
        case .direct:
            return sendDirect()
        case .askThenDirect:
            return askThenSend()
        case .handoff:
            return handOff()
        case .draft where request.forcedPath == .draft:
            return saveDraft(because: nil, path: .draft)
        case .draft:
            var reason = handlerProblem
            if let accountProblem { reason += "; and no account to send from: \(accountProblem)" }
            return saveDraft(because: reason, path: .draft)
        case .impossible(let kind, let message):
            let path: RouteReport.Path = request.forcedPath == .handoff ? .handoff : .direct
            let detail = request.forcedPath == .handoff ? "\(message): \(handlerProblem)" : message
            return failed(path: path, RouteReport.Failure(kind: kind, message: detail), server: server?.address)
        }
    }

    /// The account and its password, now: a usable account is one whose password can
    /// be had without a terminal.
    mutating func readAccount(withPassword: Bool) {
        do {
            guard let account = try AccountConfiguration.load() else {
                accountProblem = "no account is configured"
                return
            }
            accountConfigured = true
            self.account = account
            if withPassword { server = try account.serverWithPassword() }
        } catch {
            accountConfigured = true
            accountProblem = error.message
            // A broken account is worth saying even when another path is taken; a script
            // that asked to send gets it as the error itself.
            if request.source == .link || request.forcedPath == .handoff {
                warnings.append("account not usable: \(error.message)")
            }
        }
    }

    /// Looks the handoff destination up once, and only when a path needs it: GIO reads the
    /// desktop's files for it, which a script's direct send need not pay for.
    mutating func findDestination() -> Bool {
        if destination == nil, !destinationLookedUp {
            destinationLookedUp = true
            do {
                // `handler=` came with the [route] settings: the file is not read again.
                destination = try Handoff.destination(configured: settings.handler)
            } catch {
                handlerProblem = RouteReport.Failure(error, otherwise: .permanent).message
            }
        }
        return destination != nil
    }

    // MARK: Consent

    mutating func askThenSend() -> RouteReport {
        guard let account, let server else { return handOff() }
        _ = findDestination()
        let decision = askConsent(
            for: email, sendingAs: account.from.readable, via: server.address, handlerName: destination?.name,
            channel: request.consentChannel, timeout: request.consentTimeout ?? settings.consentTimeout)
        switch decision {
        case .send:
            return sendDirect()
        case .handOff:
            return handOff()
        case .save:
            return saveDraft(because: nil, path: .draft)
        case .cancel:
            var report = RouteReport(path: .direct, result: .cancelled)
            report.server = server.address
            return report
        case .notConsented(let reason):
            // Rule 1: where consent cannot be asked, the message is never sent.
            warnings.append("not sent directly: the link needs your consent, which could not be asked (\(reason))")
            return destination == nil ? saveDraft(because: handlerProblem, path: .draft) : handOff()
        }
    }

    // MARK: Paths

    mutating func sendDirect() -> RouteReport {
        guard let account, let server else {
            return failed(path: .direct, RouteReport.Failure(kind: .configuration, message: accountProblem ?? "no account"))
        }
        var report = RouteReport(path: .direct, result: .failed)
        report.server = server.address
        let message: OutgoingMessage
        do throws(MIMEError) {
            message = try OutgoingMessage(from: account.from, email: email)
        } catch {
            // A link's In-Reply-To or References that is no message identifier: the user
            // said send, so the message goes without them, and the report says so.
            var withoutHeaders = email
            withoutHeaders.headers = [:]
            guard request.source == .link, !email.headers.isEmpty,
                  let sendable = try? OutgoingMessage(from: account.from, email: withoutHeaders) else {
                return failed(path: .direct, RouteReport.Failure(error, otherwise: .permanent), server: server.address)
            }
            message = sendable
            report.warnings.append("header fields \(email.headers.keys.sorted().joined(separator: ", ")) not sent: \(error.message)")
        }
        report.messageId = message.messageID
        request.messageSize?(message.size)
        do throws(SMTPError) {
            let receipt = try SMTPSubmission.send(message, via: server, progress: request.progress)
            report.result = .sent
            report.reply = receipt.reply
            report.accepted = receipt.accepted
            report.refused = receipt.refused.map { RouteReport.Refusal(address: $0.address, reply: $0.reply) }
            for refusal in receipt.refused {
                report.warnings.append("the server refused \(refusal.address): \(refusal.reply)")
            }
            let deferred = DeferredRecipients.of(receipt)
            if !deferred.isEmpty {
                do {
                    let (entry, warning) = try DeferredRecipients.queue(
                        try message.makeStream().readAll(), envelopeFrom: account.from.asciiAddress, deferred: deferred,
                        messageId: message.messageID, server: server.address, subject: email.subject,
                        outbox: StorageLocations.current().outbox)
                    report.outboxId = entry.id
                    report.warnings.append(warning)
                } catch {
                    report.warnings.append("could not queue the message for \(deferred.map(\.address).joined(separator: ", ")): \(RouteReport.Failure(error, otherwise: .permanent).message)")
                    if let failure = attachDraft(to: &report) {
                        report.warnings.append("the message could not be saved as a draft either: \(failure.message)")
                    }
                }
            }
            return report
        } catch {
            report.reply = error.reply
            report.error = RouteReport.Failure(error, otherwise: .permanent)
            if error.kind == .transient {
                return queue(message, account: account, report: report)
            }
            return keepAsDraft(report)
        }
    }

    /// A transient failure: into the outbox, to be retried (the same Message-ID).
    mutating func queue(_ message: OutgoingMessage, account: Account, report: RouteReport) -> RouteReport {
        var report = report
        do {
            let bytes = try message.makeStream().readAll()
            let entry = try StorageLocations.current().outbox.enqueue(
                OutboxMessage(bytes: bytes, envelopeFrom: account.from.asciiAddress,
                              recipients: message.recipients.map(\.asciiAddress), messageId: message.messageID,
                              server: report.server, subject: email.subject),
                failedAttempt: report.error)
            report.path = .direct
            report.result = .queued
            report.outboxId = entry.id
            return report
        } catch {
            report.warnings.append("could not put the message in the outbox: \(RouteReport.Failure(error, otherwise: .permanent).message)")
            return keepAsDraft(report)
        }
    }

    mutating func handOff() -> RouteReport {
        _ = findDestination()
        guard let destination else {
            return notHandedOff(RouteReport.Failure(kind: .permanent, message: handlerProblem))
        }
        do {
            let result = try Handoff.handOff(email, to: destination)
            var report = RouteReport(path: .handoff, result: .handedOff)
            report.handler = RouteReport.Handler(id: result.handlerID, name: result.handlerName)
            report.warnings = result.warnings
            if !result.notCarried.isEmpty {
                // Rule 2: what the mail program did not get is kept whole as well.
                if let failure = attachDraft(to: &report) {
                    report.warnings.append("what \(result.handlerName) did not get could not be kept as a draft either: \(failure.message)")
                } else if let path = report.draft {
                    report.warnings.append("the whole message, with what \(result.handlerName) did not get, is saved as \(path)")
                }
            }
            return report
        } catch {
            return notHandedOff(RouteReport.Failure(error, otherwise: .permanent))
        }
    }

    /// The mail program could not take it: a forced handoff fails, any other is saved.
    mutating func notHandedOff(_ failure: RouteReport.Failure) -> RouteReport {
        if request.forcedPath == .handoff { return failed(path: .handoff, failure) }
        return saveDraft(because: "not handed off: \(failure.message)", path: .draft)
    }

    mutating func saveDraft(because reason: String?, path: RouteReport.Path) -> RouteReport {
        var report = RouteReport(path: path, result: .saved)
        if let reason { report.warnings.append(reason) }
        if let error = attachDraft(to: &report) {
            report.result = .failed
            report.error = error
        }
        return report
    }

    /// A report of a failure, with the message kept as a draft (rule 3).
    mutating func failed(path: RouteReport.Path, _ failure: RouteReport.Failure, server: String? = nil) -> RouteReport {
        var report = RouteReport(path: path, result: .failed)
        report.server = server
        report.error = failure
        return keepAsDraft(report)
    }

    mutating func keepAsDraft(_ report: RouteReport) -> RouteReport {
        var report = report
        report.result = .failed
        if let error = attachDraft(to: &report) {
            report.warnings.append("the message could not be saved as a draft either: \(error.message)")
        }
        return report
    }

    /// Writes the message as a draft `.eml` and puts its path (and what the draft had to
    /// leave out) in `report`; returns why it could not be written.
    func attachDraft(to report: inout RouteReport) -> RouteReport.Failure? {
        let (message, warnings) = OutgoingMessage.draft(of: email, from: account?.from)
        report.warnings += warnings
        do {
            let bytes = try message.makeStream().readAll()
            report.draft = try StorageLocations.current().drafts.save(bytes).path
            return nil
        } catch {
            let failure = RouteReport.Failure(error, otherwise: .permanent)
            return RouteReport.Failure(kind: failure.kind, message: "cannot save a draft: \(failure.message)")
        }
    }

    // MARK: Log

    /// One line in the outcome log; never a body, a subject or a password.
    func log(_ report: RouteReport) {
        Router.log(report, source: request.source)
    }
}

extension Mailbox {
    /// `Name <address>`, or the address alone, as a person reads it.
    var readable: String {
        displayName.map { "\($0) <\(address)>" } ?? address
    }
}

extension Router {
    /// Appends `report` to the outcome log: one line, never a body, a subject or a
    /// password. For a run that ended without routing (a compose the user cancelled).
    public static func log(_ report: RouteReport, source: RouteRequest.Source) {
        let outcome = Outcome(
            source: source.rawValue, path: report.path.rawValue, result: report.result.rawValue,
            handler: report.handler?.id, server: report.server, errorKind: report.error?.kind)
        // The log is for looking back; failing to write it changes nothing that happened.
        try? StorageLocations.current().outcomeLog.append(outcome)
    }

    /// For a link that could not be read (exit 65): the outcome log gets a line (path
    /// `none`, nothing was routed) and, without a terminal, the user a notification.
    public static func tellUnreadableLink(_ error: MailtoURLError) {
        let outcome = Outcome(source: RouteRequest.Source.link.rawValue, path: "none", result: "failed",
                              errorKind: error.kind)
        try? StorageLocations.current().outcomeLog.append(outcome)
        if !hasTerminal() {
            try? showReportNotification(summary: "cannot open this link", details: [error.description], urgent: true)
        }
    }

    /// The quick flush every run makes after its own message (issue 5): at most `limit`
    /// due outbox messages, over the account as it is now. Skipped when this run's own
    /// message has just been queued: its server is not taking mail.
    /// A link under `policy=handoff` does not flush: that would ask for the account's
    /// password (a password command may pop up a keyring prompt) on a click that sends
    /// nothing; `outbox watch` or the next `send` takes the queue.
    public static func flushDueAfter(_ report: RouteReport, source: RouteRequest.Source, limit: Int = 20) {
        // A [route] group that does not read is taken as handoff, as the router takes it.
        if source == .link, RouteSettings.configured().policy == .handoff { return }
        guard report.result != .queued, let locations = try? StorageLocations.current(),
              let due = try? locations.outbox.due(now: .now()), !due.isEmpty,
              let send = OutboxDelivery.configuredSender(),
              let reports = try? locations.outbox.flush(limit: limit, send: send)
        else { return }
        try? locations.outcomeLog.append(contentsOf: reports.map {
            Outcome(source: "outbox", path: "outbox", result: $0.outcome.result, server: $0.entry.server,
                    errorKind: $0.error?.kind)
        })
        OutboxFlushing.notifyGivenUp(reports)
    }
}
