#if canImport(Glibc)
import Glibc
#endif
import AddressBookHelper
import ComposeSheet
import MailtoRoute
import MainLoop
import MIMEMessage
import SMTPTransport
import Synchronization

// Every call from the desktop program into MailtoRoute is in this file: what a sheet opens
// with, what each of its buttons does, and how the outcome is told and logged, all through
// the run's one Session (the paths, the configuration, the password, the connection).

/// Where the message came from, as the outcome log and the report say it.
enum SheetSource {
    /// `open URL`: a clicked link; the sheet is its consent (docs/design.md rule 1).
    case link
    /// `compose [URL]`: the user sat down to write.
    case compose
    /// An application's `ComposeEmail` through the Email portal.
    case portal

    /// The source a cancel is logged under; what the buttons route is the sheet's.
    var routeSource: RouteRequest.Source {
        switch self {
        case .link: .link
        case .compose: .compose
        case .portal: .portal
        }
    }
}

/// The facts a sheet opens with, read once at start (docs/style.md habit 12).
struct SheetStart {
    var content: SheetContent
    var recovery: RecoveryStore?
    /// What a leftover recovery file became (saved as a draft), for the report.
    var warnings: [String]
}

enum SheetDelivery {
    /// Reads a link (exit 65 with one line when it does not read; the outcome log and,
    /// without a terminal, a notification say so, as for the command line).
    /// The attach= files `trust` covers (a local program's) become trusted attachments,
    /// shown ticked, or the one that cannot be attached is the error; the rest are listed
    /// unticked, by their full path.
    static func parse(_ url: String, session: Session, trust: AttachmentTrust = .none) -> Result<EmailData, Failure> {
        do {
            return .success(try LocalAttachments.trusting(MailtoURL.parse(url), trust))
        } catch let error as any ClassifiedError {
            session.tellUnreadableLink(error)
            return .failure(Failure(error, otherwise: .input))
        } catch {
            return .failure(Failure(error, otherwise: .input))
        }
    }

    /// The account (From), whether Send can work, the mail program for "Open in NAME",
    /// and the recovery files that earlier sheets left: `compose` without a URL offers the
    /// newest one again in the sheet; every other is saved as a draft (rule 3).
    /// `attachmentsRequestedBy` names the program that asked for the files listed unticked.
    static func start(_ email: EmailData?, source: SheetSource, session: Session,
                      attachmentsRequestedBy: String? = nil) -> SheetStart {
        var from: String?
        var sendUnavailable: String?
        var noAccount = false
        // The From chooser: every account that reads, the one last used first (else the
        // default); with none, the default account's mistake says why Send cannot work.
        let accounts = session.accountChoices(checkingCredentials: false).filter { $0.problem == nil }
        let preferred = session.preferredAccountName
        let fromIndex = accounts.firstIndex { $0.name == preferred } ?? 0
        var signature: String?
        if accounts.indices.contains(fromIndex) {
            from = accounts[fromIndex].from
            // A new message gets that account's signature.
            signature = try? session.accounts.first { $0.name == accounts[fromIndex].name }?.account.get().signature
        } else if case .failure(let mistake)? = session.defaultAccountSetup.map({ $0.flatMap(\.account) }) {
            sendUnavailable = mistake.message
        } else {
            // The sheet offers "Set up sending" instead (SheetDeliveryHost.setUpSending).
            sendUnavailable = tr("no account is set up")
            noAccount = true
        }
        let mailProgram = try? session.destination().get()

        var recovery = RecoveryStore(stateDirectory: session.storage.stateDirectory)
        var leftovers = recovery.takeLeftovers()
        var shown = email ?? EmailData()
        var notices: [String] = []
        var recovered = false
        if email == nil, let newest = leftovers.popLast() {
            recovered = true
            shown = newest.email
            // Its files go once the sheet's own recovery file has it.
            recovery.carried = newest
            notices.append(tr("This is the message you were writing when its window closed unexpectedly."))
        }
        var warnings: [String] = []
        for leftover in leftovers {
            // The draft path: saved, logged, its path in the report. Its files go only once
            // the draft is written; else the next start finds it again.
            let report = session.route(RouteRequest(email: leftover.email, source: .sheet, forcedPath: .draft))
            if report.draft != nil { leftover.discard() }
            let line = report.draft.map { tr("a message you were writing when its window closed unexpectedly is saved as a draft: %@", $0) }
                ?? tr("a message you were writing when its window closed unexpectedly could not be saved: %@", report.summary)
            warnings.append(line)
            notices.append(line.prefix(1).uppercased() + line.dropFirst())
        }
        var content = SheetContent(
            from: from, sendUnavailable: sendUnavailable, email: shown, mailProgramName: mailProgram?.name,
            notices: notices)
        content.attachmentsRequestedBy = attachmentsRequestedBy
        if noAccount {
            content.offersSetup = true
            content.onlineAccountsAvailable = session.services.onlineAccounts.isAvailable
        }
        content.accounts = accounts.map { FromAccount(name: $0.name, readable: $0.from ?? $0.name, origin: $0.origin) }
        content.fromIndex = fromIndex
        content.isRecovered = recovered
        content.remembersWay = session.routeSettings.always != nil && session.wayFromSystemFile == nil
        // A new message gets the account's signature; one written before (recovered) has
        // what the user left of it.
        if !recovered { content.signature = signature }
        // Completion: the addresses sent to before, most used first (read once, here).
        content.recentRecipients = ((try? session.storage.recipients.entries()) ?? []).map {
            AddressSuggestion(name: $0.name, address: $0.address, fromHistory: true)
        }
        // And the desktop's address books, asked through mailto-route-books as one types.
        content.lookUpContacts = { prefix in
            SheetDelivery.addressBooks.contacts(matching: prefix).map {
                AddressSuggestion(name: $0.name.isEmpty ? nil : $0.name, address: $0.address, fromHistory: false)
            }
        }
        return SheetStart(content: content, recovery: recovery, warnings: warnings)
    }

    /// The address books' helper, one for the process (the service's sheets share it):
    /// started when someone first types in an address field, never before.
    static let addressBooks = AddressBookHelper(program: SheetService.programBeside(AddressBookHelper.programName))
}

/// Does what the user chose in a sheet, through the Router, and keeps the report of the
/// choice that ended it. Called from the sheet's worker thread (`perform`) and the main
/// thread (the rest); the reports are behind a lock.
final class SheetDeliveryHost: SheetHost {
    let source: SheetSource
    /// The run's session, used under `sessionLock` only, by one thread at a time (the
    /// worker's action, or the main thread's cancel and finish): hence `unsafe`. Made
    /// anew once sending is set up in the sheet, so that Send finds the new account.
    nonisolated(unsafe) private var session: Session
    private let sessionLock = Mutex(())
    private let state = Mutex<RouteReport?>(nil)
    /// What the service does once the sheet is gone (answers its caller).
    @GLibMainActor var onClosed: (() -> Void)?
    /// What the service does when the window of a held Send is closed (a notification
    /// with Undo for the held report). `nil`: nothing (one sheet's program).
    @GLibMainActor var onHeldWindowClosed: ((RouteReport) -> Void)?
    /// The Send held for Undo: the claim on its outbox entry, kept from the hold until it
    /// is sent or undone, so that nobody else sends it meanwhile; and its report. Under
    /// `sessionLock` only.
    nonisolated(unsafe) private var held: (claim: OutboxClaim?, report: RouteReport)?
    /// The Stop of the Send the sheet started last (`willSend`), which its `perform` takes.
    private let sending = Mutex<SendStop?>(nil)

    init(source: SheetSource, session: Session) {
        self.source = source
        self.session = session
    }

    /// The report of how the sheet ended; `nil` while it is open.
    var report: RouteReport? {
        state.withLock { $0 }
    }

    func perform(_ action: SheetAction, with email: EmailData, from account: String?) -> SheetActionResult {
        // The sheet is the user's own writing and its button their consent (rule 1): it
        // is routed on the path the button names, with no second question. A failure is
        // kept on screen, not as a draft: the user mends it and sends again, or saves it.
        let path: RouteRequest.ForcedPath = switch action {
        case .send, .sendLater, .releaseHold: .direct
        case .saveDraft: .draft
        case .handOff: .handoff
        }
        let stop = action == .send || action == .releaseHold ? sending.withLock { $0 } : nil
        // Once this returns, a Stop is too late: the sheet is told the outcome.
        defer { stop?.end() }
        if action == .releaseHold { return releaseHold(stop: stop) }
        var request = RouteRequest(email: email, source: .sheet, forcedPath: path)
        request.keepsFailedMessage = false
        request.account = account
        request.stop = stop
        let report = sessionLock.withLock { _ in
            let now = session.services.clock.now()
            switch action {
            case .send where session.routeSettings.undoSeconds > 0:
                request.held = (.undo, now + Int64(session.routeSettings.undoSeconds))
            case .sendLater(let choice):
                let moment = choice.moment(now: now.secondsSinceEpoch) { days, hour, minute, second in
                    Timestamp.local(daysFromToday: days, hour: hour, minute: minute, second: second, now: now)?.secondsSinceEpoch
                }
                guard let moment else {
                    var refused = RouteReport(path: .direct, result: .failed)
                    refused.error = Failure(kind: .input, message: tr("that time does not exist here (a daylight-saving change?)"))
                    return refused
                }
                request.held = (.later, Timestamp(secondsSinceEpoch: moment))
            default:
                break
            }
            let report = session.route(request)
            if report.hold == .undo, let id = report.outboxId {
                // Kept until the hold ends: no flush, watch or service sends it meanwhile.
                held = ((try? session.storage.outbox.claim(id)) ?? nil, report)
            }
            return report
        }
        // The From chooser offers it first next time (also when it is held: chosen all the same).
        if action != .saveDraft, action != .handOff, let account, report.result == .sent || report.result == .queued {
            sessionLock.withLock { _ in session.rememberLastUsed(account) }
        }
        if report.hold == .undo, report.result == .queued {
            return .held(seconds: session.routeSettings.undoSeconds)
        }
        if report.result == .cancelled { return .failed(Self.stopped) }
        guard report.result == .failed else {
            state.withLock { $0 = report }
            return .finished
        }
        return .failed(report.error?.message ?? report.summary)
    }

    /// What the sheet says of a Send the person stopped in time.
    static var stopped: String { FailureCause.stopped.reason }

    func willSend() {
        sending.withLock { $0 = SendStop() }
    }

    func stopSending() -> Bool {
        sending.withLock { $0 }?.ask() ?? false
    }

    /// "Set up sending": the account found, tested and kept (`SendingSetup`), then the
    /// session read again, so that the sheet's Send goes through it.
    func setUpSending(_ form: SendingSetupForm) -> SendingSetupAnswer {
        let from: Mailbox
        do {
            from = try Mailbox(parsing: form.address)
        } catch {
            return .failed(error.message)
        }
        var request = SendingSetup.Request(from: from, password: form.password)
        if let manual = form.server {
            request.manual = SendingSetup.ManualServer(host: manual.host, port: manual.port,
                                                       security: SMTPServer.Security(rawValue: manual.security), user: manual.user)
        }
        return sessionLock.withLock { _ in
            let context = SendingSetup.Context(paths: session.paths, network: session.services.mailServers,
                                               mayPrompt: session.environment.hasDisplay)
            do throws(SendingSetupError) {
                let outcome = try SendingSetup.run(request, context: context)
                session = Session(paths: session.paths, configuration: .load(session.paths), environment: session.environment,
                                  services: session.services)
                return .ready(from: from.readable, summary: outcome.server.address)
            } catch {
                let text = ([error.description] + error.steps).joined(separator: "\n")
                return error.reason == .notFound ? .notFound(text) : .failed(text)
            }
        }
    }

    /// The Undo time is over: the held message goes now, under the claim kept since the
    /// hold began. Without the claim (it could not be taken), the outbox's owner sends it
    /// at its time, and the report says it is held until then.
    private func releaseHold(stop: SendStop?) -> SheetActionResult {
        let report = sessionLock.withLock { _ -> RouteReport? in
            guard let (claim, heldReport) = held else { return nil }
            held = nil
            guard let claim else { return heldReport }
            var report = session.sendHeld(claim, stop: stop)
            report.to = heldReport.to
            report.warnings = heldReport.warnings + report.warnings
            // Stop was pressed, but the held copy could not leave the outbox: it went on.
            if let why = stop?.refusal { report.warnings.append(tr("could not stop sending it: %@", why)) }
            return report
        }
        guard let report else { return .failed(tr("nothing is held")) }
        if report.result == .cancelled { return .failed(Self.stopped) }
        guard report.result == .failed else {
            state.withLock { $0 = report }
            return .finished
        }
        return .failed(report.error?.message ?? report.summary)
    }

    /// Undo: the held message leaves the outbox unsent, under the kept claim (or one taken
    /// now, when the hold began without it); the outcome log says so.
    func undoHold() -> String? {
        sessionLock.withLock { _ -> String? in
            guard let (kept, heldReport) = held, let id = heldReport.outboxId else { return tr("nothing is held") }
            do {
                let claim = try kept ?? session.storage.outbox.claim(id, patience: 500)
                guard let claim else { return tr("it is being sent") }
                _ = try claim.undo(now: session.services.clock.now())
            } catch {
                return Failure(error, otherwise: .permanent).message
            }
            held = nil
            var report = RouteReport(path: .direct, result: .cancelled)
            report.outboxId = id
            report.warnings = [tr("Send undone: the message was held in the outbox and is back in the sheet")]
            session.log(report, source: .sheet)
            return nil
        }
    }

    @GLibMainActor
    func heldWindowClosed() {
        guard let report = sessionLock.withLock({ _ in held?.report }) else { return }
        onHeldWindowClosed?(report)
    }

    func cancelled() {
        let report = RouteReport(path: .compose, result: .cancelled)
        sessionLock.withLock { _ in session.log(report, source: source.routeSource) }
        state.withLock { $0 = report }
    }

    func forgetWay() -> String? {
        let forgotten = sessionLock.withLock { _ in Result { () throws(ConfigurationError) in _ = try session.forgetWay() } }
        if case .failure(let error) = forgotten { return error.message }
        return nil
    }

    func forgetRecipient(_ address: String) {
        sessionLock.withLock { _ in try? session.storage.recipients.forget(address) }
    }

    @GLibMainActor
    func sheetClosed() {
        let closed = onClosed
        onClosed = nil
        closed?()
    }

    /// The end of the run, as every run ends (`Session.finish`): what is due in the outbox
    /// goes out over the same connection.
    func finish(_ report: RouteReport) {
        sessionLock.withLock { _ in _ = session.finish(report, source: .sheet) { _ in } }
    }
}

// MARK: - The request and its outcome

extension SheetDelivery {
    /// What a sheet request opens with: its message (the URL read once) and where it came
    /// from.
    struct Opening {
        var email: EmailData?
        var source: SheetSource
    }

    /// Reads `request`'s URL, trusting the files its judgement covers; an unreadable one
    /// is the outcome (65), said as the command line says it.
    static func opening(_ request: ServiceProtocol.Request, session: Session) -> Result<Opening, Refusal> {
        let source: SheetSource = request.source == .link ? .link : .compose
        guard let url = request.url else { return .success(Opening(email: nil, source: source)) }
        switch parse(url, session: session, trust: request.trust) {
        case .success(let email): return .success(Opening(email: email, source: source))
        case .failure(let failure):
            return .failure(Refusal(answer: ServiceProtocol.Answer(
                status: RouteReport.exitStatus(for: failure.kind), report: nil, message: failure.message)))
        }
    }

    /// A request that opens no sheet, and what its caller is told.
    struct Refusal: Error {
        var answer: ServiceProtocol.Answer
    }

    /// What the caller is told: docs/design.md's exit status and the report as data.
    static func outcome(_ report: RouteReport?) -> ServiceProtocol.Answer {
        guard let report else {
            return ServiceProtocol.Answer(status: 1, report: nil, message: tr("the sheet ended without a result"))
        }
        return ServiceProtocol.Answer(status: report.exitStatus, report: report.json.serialized, message: "")
    }
}

