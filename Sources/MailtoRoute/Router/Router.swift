#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MIMEMessage
import SMTPTransport

extension Session {
    /// Routes one message to its end: sent, queued, handed off, saved, cancelled or
    /// failed, and never lost: whatever could not be sent or handed off is in the outbox
    /// or saved as a draft, and the report says where (rule 3). The outcome log gets it.
    public func route(_ request: RouteRequest) -> RouteReport {
        var routing = Routing(session: self, request: request)
        var report = routing.run()
        report.warnings = routing.warnings + report.warnings
        report.to = request.email.to.map { request.email.names[$0] ?? $0 }
        report = arrived(report, source: request.source)
        log(report, source: request.source)
        rememberRecipients(of: request.email, report)
        return report
    }

    /// Whom a message went to, or will go to from the outbox (every sending path: the sheet,
    /// `send`, a link, a draft), for the sheet's completion; those the server refused are
    /// not kept. The history is a convenience: failing to write it changes nothing sent.
    private func rememberRecipients(of email: EmailData, _ report: RouteReport) {
        guard report.result == .sent || report.result == .queued else { return }
        let refused = Set(report.refused.map { $0.address.lowercased() })
        let recipients = (email.to + email.cc + email.bcc).filter { !refused.contains($0.lowercased()) }
        try? storage.recipients.record(recipients, names: email.names, now: services.clock.now())
    }

    /// The whole run for one message: route it, let `present` say what came of it, then
    /// send what is due in the outbox over the same connection (the quick flush, at most
    /// `flushLimit` messages). Skipped when this message was just queued (its server is
    /// not taking mail), and for a link under `policy=handoff`, which sends nothing and
    /// so never asks for the password (a password command may pop up a keyring prompt).
    public func run(_ request: RouteRequest, present: (RouteReport) -> Void) -> RouteReport {
        finish(route(request), source: request.source, present: present)
    }

    /// The end of every run: `present` says what came of it, then the quick flush.
    public func finish(_ report: RouteReport, source: RouteRequest.Source, flushLimit: Int = 20,
                present: (RouteReport) -> Void) -> RouteReport {
        present(report)
        // "It will be retried": the desktop service owns the outbox from now until nothing
        // is queued (where a session bus and the service are there; check says who retries).
        if report.result == .queued { services.ownOutbox() }
        let sendsNothing = source == .link && routeSettings.policy == .handoff
        if report.result != .queued, !sendsNothing, hasAnyAccount,
           let due = try? storage.outbox.due(now: services.clock.now()), !due.isEmpty,
           let flushed = try? flushOutbox(now: services.clock.now(), limit: flushLimit) {
            notifyGivenUp(flushed.reports)
        }
        return report
    }

    /// The plan for `request`, from this run's facts as they stand: the one decision of
    /// what is done with it. A caller that can show the compose sheet asks with
    /// `request.sheet` set, and shows it when the plan says `.sheet`; `route` carries out
    /// every other plan. The password is obtained here only when the plan sends.
    public func plan(_ request: RouteRequest) -> Plan {
        Plan.make(source: request.source, forcedPath: request.forcedPath, policy: routeSettings.policy,
                  account: accountState(for: request), sheet: request.sheet, always: always(for: request),
                  handler: routeSettings.handler != nil, ways: { Way.count(ways()) },
                  passwordProblem: { passwordProblem(for: request) }, handlerProblem: {
                      if case .failure(let failure) = destination(for: request) { return failure.message }
                      return nil
                  })
    }

    /// Why the default account's password cannot be had now (obtaining it the first time);
    /// `nil` when it can.
    var passwordProblem: String? { passwordProblem(for: nil) }

    /// Why the password of the account `request` sends from cannot be had now; `nil` when
    /// it can, and for an account of GNOME Online Accounts, whose credentials are asked for
    /// at the attempt itself (a message that cannot have them waits in the outbox).
    func passwordProblem(for request: RouteRequest?) -> String? {
        guard let account = request.map(account(for:)) ?? account, account.onlineAccount == nil else { return nil }
        do {
            _ = try server(for: account)
            return nil
        } catch {
            return Failure(error, otherwise: .configuration).message
        }
    }

    /// The default account as the plan sees it, before its password is asked for.
    var accountState: Plan.AccountState { state(of: defaultAccountSetup) }

    /// The account `request` sends from, as the plan sees it.
    func accountState(for request: RouteRequest) -> Plan.AccountState {
        state(of: accountSetup(request.account))
    }

    private func state(of setup: Result<AccountSetup, ConfigurationError>?) -> Plan.AccountState {
        switch setup {
        case nil: .none
        case .failure(let mistake)?: .unusable(mistake.message)
        case .success(let setup)?:
            switch setup.account {
            case .failure(let mistake): .unusable(mistake.message)
            case .success: .usable
            }
        }
    }
}

/// One routing: the session, the request, the warnings gathered on the way.
private struct Routing {
    let session: Session
    let request: RouteRequest
    var email: EmailData { request.email }
    var warnings: [String]

    init(session: Session, request: RouteRequest) {
        self.session = session
        self.request = request
        // Rule 2: each hfield not taken is named; rule 8: each file a link asked for, with
        // who asked, in place of the attach hfield's own line.
        let files = RouteRequest.unattachedWarnings(request.email, requestedBy: request.attachmentsRequestedBy)
        warnings = request.warnings + request.email.dropped.filter { files.isEmpty || $0.reason != .attachment }.map(\.warning) + files
    }

    /// A broken account is worth saying even when another path is taken; a script that
    /// asked to send gets it as the error itself.
    private var saysAccountProblems: Bool { request.source == .link || request.forcedPath == .handoff }

    mutating func run() -> RouteReport {
        // The sheet is shown by its caller (`Session.plan` with `request.sheet`), which then
        // routes what the user did there; here it is the plan without one.
        var sheetless = request
        sheetless.sheet = false
        let plan = session.plan(sheetless)
        // Copying sends nothing: the account and the route's settings are not its business.
        if plan == .copy { return copyAddresses() }
        // A broken [route] group is read as policy=handoff, keeping its handler=.
        if let error = session.routeSettings.error {
            warnings.append(tr("%@; links are handed off until it is fixed", error.message))
        }
        let state = session.accountState(for: request)
        if case .unusable(let problem) = state, saysAccountProblems { warnings.append(tr("account not usable: %@", problem)) }
        // A usable account is one whose password can be had now, without a terminal.
        if state == .usable, saysAccountProblems, session.triedPassword, let problem = session.passwordProblem(for: request) {
            warnings.append(tr("account not usable: %@", problem))
        }
        switch plan {
        case .sheet, .choose:
            preconditionFailure("a plan made without a sheet is never .sheet or .choose")
        case .send: return sendDirect()
        case .copy: return copyAddresses()
        case .ask(let otherwise): return askThenSend(otherwise: otherwise)
        case .handOff: return handOff()
        case .saveDraft(let reason): return saveDraft(because: reason)
        case .fail(let path, let failure): return failed(path: path, failure)
        }
    }

    // MARK: Consent

    mutating func askThenSend(otherwise: Plan.Fallback) -> RouteReport {
        guard let account = session.account(for: request) else { return handOff() }
        // The server as the account has it: a password is obtained only for an account
        // whose plan asked (GNOME Online Accounts' credentials wait for the attempt).
        let server = account.onlineAccount == nil ? ((try? session.server(for: account)) ?? account.server) : account.server
        let handlerName = try? session.destination().get().name
        let question = ConsentQuestion(email: email, from: account.from.readable, server: server.address, handlerName: handlerName)
        let decision = session.services.consent.ask(
            question, channel: request.consentChannel, timeout: request.consentTimeout ?? session.routeSettings.consentTimeout)
        switch decision {
        case .send:
            return sendDirect()
        case .handOff:
            return handOff()
        case .save:
            return saveDraft(because: nil)
        case .cancel:
            var report = RouteReport(path: .direct, result: .cancelled)
            report.server = server.address
            report.account = account.name
            return report
        case .notConsented(let reason):
            // Rule 1: where consent cannot be asked, the message is never sent.
            warnings.append(tr("not sent directly: the link needs your consent, which could not be asked (%@)", reason))
            switch otherwise {
            case .handOff: return handOff()
            case .saveDraft(let reason): return saveDraft(because: reason)
            }
        }
    }

    // MARK: Paths

    /// Copy Address: the recipients on the clipboard (`services.clipboard`), nothing sent.
    /// A link that names nobody is bad input; no clipboard to hold them, a failure. No draft
    /// is kept either way: the person asked for the addresses, not for the message.
    func copyAddresses() -> RouteReport {
        var report = RouteReport(path: .copy, result: .failed)
        let text = email.copiedAddresses
        guard !text.isEmpty else {
            report.error = Failure(kind: .input, message: tr("the link names no address to copy"))
            return report
        }
        do throws(DesktopError) {
            try session.services.clipboard.copy(text)
        } catch {
            report.error = Failure(kind: error.kind, message: error.message)
            return report
        }
        report.result = .copied
        report.copied = text
        return report
    }

    mutating func sendDirect() -> RouteReport {
        guard let account = session.account(for: request) else {
            return failed(path: .direct, Failure(kind: .configuration, message: tr("no account is configured")))
        }
        var report = RouteReport(path: .direct, result: .failed)
        report.server = account.server.address
        report.account = account.name
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
                report.error = Failure(error, otherwise: .permanent)
                return keepAsDraft(report)
            }
            message = sendable
            report.warnings.append(tr("header fields %@ not sent: %@", email.headers.keys.sorted().joined(separator: ", "), error.message))
        }
        report.messageId = message.messageID
        request.messageSize?(message.size)
        if let held = request.held {
            // Undo send, Send later: the outbox carries it until its time (rule 3).
            session.hold(Submission(message, subject: email.subject, account: account), held, into: &report)
            return report.result == .failed ? keepAsDraft(report) : report
        }
        var submission = Submission(message, subject: email.subject, account: account)
        submission.stop = request.stop
        if session.submit(submission, into: &report, progress: request.progress) == .keep {
            return keepAsDraft(report)
        }
        return report
    }

    mutating func handOff() -> RouteReport {
        let destination: any MailProgram
        switch session.destination(for: request) {
        case .success(let found): destination = found
        case .failure(let failure): return notHandedOff(failure)
        }
        if let report = storedAsDraft(then: destination) { return report }
        do {
            let result = try destination.take(email, loopGuard: session.environment.handoffGuard,
                                              filesDirectory: session.storage.handoffDirectory)
            var report = RouteReport(path: .handoff, result: .handedOff)
            report.handler = RouteReport.Handler(id: result.handlerID, name: result.handlerName)
            report.warnings = result.warnings
            if !result.notCarried.isEmpty {
                // Rule 2: what the mail program did not get is kept whole as well.
                if let failure = attachDraft(to: &report) {
                    report.keptOnlyByCaller = true
                    report.warnings.append(tr("what %@ did not get could not be kept as a draft either: %@", result.handlerName, failure.message))
                } else if let path = report.draft {
                    report.warnings.append(tr("the whole message, with what %@ did not get, is saved as %@", result.handlerName, path))
                }
            }
            return report
        } catch {
            var report = RouteReport(path: .handoff, result: .failed)
            report.handler = RouteReport.Handler(id: destination.id, name: destination.name)
            report.error = Failure(error, otherwise: .permanent)
            guard request.forcedPath != .handoff else { return keepAsDraft(report) }
            // The log says the handoff failed, with its kind, before the draft it became.
            session.log(report, source: request.source)
            return notHandedOff(Failure(error, otherwise: .permanent))
        }
    }

    /// A webmail handoff that carries everything (issue 34): the whole message, every
    /// attachment, stored in the Drafts of the account's own mailbox (IMAP), then the
    /// webmail's drafts view opened for that account (the account the way names, else the
    /// request's). `nil` for a mail program, a webmail
    /// with no drafts view, an account that names no IMAP server, or a message that could not
    /// be stored there (said once, in the warnings): the handoff goes on as before, and what
    /// the compose page cannot carry is kept in a local draft.
    mutating func storedAsDraft(then destination: any MailProgram) -> RouteReport? {
        // A way of one account (`webmail:gmail:jane@gmail.com`) stores in that one's Drafts.
        var request = request
        if let address = destination.account { request.account = address }
        guard let account = session.account(for: request), account.imap != nil else { return nil }
        let draftsURL: String
        do {
            guard let url = try destination.draftsURL(of: account.from.address, template: session.routeSettings.webmailDrafts) else {
                return nil
            }
            draftsURL = url
        } catch {
            warnings.append(tr("not stored in the Drafts of %@: %@", account.from.address, Failure(error, otherwise: .configuration).message))
            return nil
        }
        let (message, draftWarnings) = OutgoingMessage.draft(of: email, from: account.from)
        let stored: StoredDraft
        do {
            stored = try session.storeInDrafts(try message.makeStream().readAll(), of: account)
        } catch {
            warnings.append(tr("not stored in the Drafts of %@: %@", account.from.address, Failure(error, otherwise: .transient).message))
            return nil
        }
        var report = RouteReport(path: .handoff, result: .handedOff)
        report.account = account.name
        report.server = stored.server
        report.mailbox = stored.mailbox
        report.messageId = message.messageID
        report.warnings = draftWarnings
        do {
            let result = try destination.openDrafts(at: draftsURL, loopGuard: session.environment.handoffGuard)
            report.handler = RouteReport.Handler(id: result.handlerID, name: result.handlerName)
            report.warnings += result.warnings
        } catch {
            // The draft is in the mailbox, so nothing is lost; but nothing was opened.
            report.result = .failed
            report.handler = RouteReport.Handler(id: destination.id, name: destination.name)
            report.error = Failure(error, otherwise: .permanent)
        }
        return report
    }

    /// The mail program could not take it: a forced handoff fails, any other is saved.
    mutating func notHandedOff(_ failure: Failure) -> RouteReport {
        if request.forcedPath == .handoff { return failed(path: .handoff, failure) }
        return saveDraft(because: tr("not handed off: %@", failure.message))
    }

    func saveDraft(because reason: String?) -> RouteReport {
        var report = RouteReport(path: .draft, result: .saved)
        if let reason { report.warnings.append(reason) }
        if let error = attachDraft(to: &report) {
            report.result = .failed
            report.error = error
        }
        return report
    }

    /// A report of a failure, with the message kept as a draft (rule 3).
    func failed(path: RouteReport.Path, _ failure: Failure) -> RouteReport {
        var report = RouteReport(path: path, result: .failed)
        report.error = failure
        return keepAsDraft(report)
    }

    /// The message kept as a draft, beside whatever `report` says of it. When it cannot be
    /// kept there either, that is the error: the user's storage needs them.
    func keepAsDraft(_ report: RouteReport) -> RouteReport {
        var report = report
        // A caller that keeps a failed message itself (the sheet, on screen) does not
        // keep a sent one: what the server took for some recipients only is kept here.
        guard request.keepsFailedMessage || report.result == .sent else { return report }
        if let error = attachDraft(to: &report) {
            report.keptOnlyByCaller = true
            report.warnings.append(tr("the message could not be saved as a draft either: %@", error.message))
            if report.result != .sent {
                report.result = .failed
                report.error = Failure(kind: .configuration, message: (report.error.map { tr("%@; and ", $0.message) } ?? "")
                    + tr("the message could not be kept anywhere: %@", error.message))
            }
        }
        return report
    }

    /// Writes the message as a draft `.eml` and puts its path (and what the draft had to
    /// leave out) in `report`; returns why it could not be written.
    func attachDraft(to report: inout RouteReport) -> Failure? {
        let sender = session.account(for: request)?.from
        var (message, warnings) = OutgoingMessage.draft(of: email, from: sender)
        var bytes: [UInt8]
        do {
            bytes = try message.makeStream().readAll()
        } catch {
            // An attachment that could be looked at but not read (another user's file, one
            // gone since): the draft keeps the rest, and says which (rule 3).
            let unreadable = email.attachments.filter { attachment in
                guard case .file(let path) = attachment.content else { return false }
                let descriptor = openForReading(path)
                if descriptor >= 0 { close(descriptor) }
                return descriptor < 0
            }
            guard !unreadable.isEmpty else {
                report.warnings += warnings
                return Failure(kind: .configuration, message: tr("cannot save a draft: %@", error.message))
            }
            var readable = email
            readable.attachments.removeAll { unreadable.contains($0) }
            (message, warnings) = OutgoingMessage.draft(of: readable, from: sender)
            warnings.append(tr("attachments %@ left out of the draft: %@", unreadable.map(\.fileName).joined(separator: ", "),
                               error.message))
            do {
                bytes = try message.makeStream().readAll()
            } catch {
                report.warnings += warnings
                return Failure(kind: .configuration, message: tr("cannot save a draft: %@", error.message))
            }
        }
        report.warnings += warnings
        do {
            report.draft = try session.storage.drafts.save(bytes).path
            return nil
        } catch {
            // A full disk and a read-only one alike: the user's storage must be mended
            // before anything can be kept, so both are the same kind (and exit status).
            return Failure(kind: .configuration, message: tr("cannot save a draft: %@", Failure(error, otherwise: .permanent).message))
        }
    }
}

extension Session {
    /// For a link that could not be read, or a file it was to attach that cannot be
    /// (`open --local`; exit 65): the outcome log gets a line (path `none`, nothing was
    /// routed) and, without a terminal, the user a notification.
    public func tellUnreadableLink(_ error: some ClassifiedError) {
        var outcome = Outcome(source: RouteRequest.Source.link.rawValue, path: "none", result: "failed",
                              errorKind: error.kind)
        outcome.arrival = arrival?.kind.rawValue
        outcome.requestedBy = arrival?.requester
        try? storage.outcomeLog.append(outcome)
        if !hasTerminal() {
            try? services.notifier.show(summary: tr("cannot open this link"), details: [error.description], urgent: true)
        }
    }
}
