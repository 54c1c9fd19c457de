#if canImport(Glibc)
import Glibc
#endif
import ComposeSheet
import DesktopIntegration
import MailtoRoute
import MainLoop

/// mailto-route as a desktop service (`mailto-route-desktop --gapplication-service`,
/// started by D-Bus activation): the primary instance that opens every sheet of the
/// session, for the command line's clicks (`Open`), for GLib launching the D-Bus activatable
/// entry, and for the Email portal; and tells outcomes in notifications with actions.
/// The one-sheet program (no service to ask) is the same flow for one request (`Role`).
/// Each request has a Session of its own (`DesktopContext.session`): the configuration may
/// change between two clicks. What it shows and when it wakes are its presenter's (GTK's
/// main loop, or a test's fake and clock), on the main loop's actor.
@GLibMainActor
public final class DesktopService: ServiceDelegate, @preconcurrency ServiceRequests {
    /// Notification buttons' actions, each with one string: the id it is for (an outbox
    /// entry, a draft, an account of GNOME Online Accounts); `own-outbox` (its string
    /// unused), which the command line activates when a run left a message queued; and
    /// `sign-in-again` (an account's name), which a run activates when an account must be
    /// signed in again, for the service to tell it with a button that still works later.
    public static let actions = ["retry-outbox", "open-draft", SheetService.ownOutboxAction, SheetService.signInAgainAction,
                          openOnlineAccountsAction, undoSendAction]
    /// A held Send's **Undo** (its outbox entry's id).
    public static let undoSendAction = "undo-send"
    public static let openOnlineAccountsAction = "open-online-accounts"

    /// The session's service, which owns the outbox while anything is queued and tells
    /// outcomes with buttons that reach it later; or one request's program, which tells
    /// through the session's notifier (no button outlives it) and leaves the outbox to the
    /// service (`Session.finish` asks it).
    public enum Role {
        case service
        case oneRequest
    }

    let context: DesktopContext
    let application: any DesktopPresenter
    let role: Role
    /// The sheets whose held Send was told in a notification with Undo, by outbox id.
    private var heldSheets: [String: any SheetWindow] = [:]

    public init(context: DesktopContext, presenter: any DesktopPresenter, role: Role = .service) {
        self.context = context
        self.application = presenter
        self.role = role
    }

    /// The service's start, once it serves: whoever started it (a click, the portal, the
    /// login's autostart entry), a message queued and not yet sent is its to retry from now.
    public func start() {
        if let queued = try? context.paths.storage.outbox.list(), !queued.isEmpty { ownOutbox() }
    }

    // MARK: - Requests

    /// The command line's `Compose`: its link (or `compose`) in a sheet, the URL read
    /// once, in this request's Session (its configuration read once); answered with the
    /// report as data, which the command line prints with its own output.
    public func compose(_ request: ServiceProtocol.Request, answer: @escaping @Sendable (ServiceProtocol.Answer) -> Void) {
        let session = context.session()
        session.arrival = request.arrival.flatMap(Arrival.Kind.init(rawValue:)).map { Arrival(kind: $0, requester: request.requestedBy) }
        let start: SheetDelivery.Opening
        switch SheetDelivery.opening(request, session: session) {
        case .success(let opening): start = opening
        case .failure(let refusal): return answer(refusal.answer)
        }
        guard application.showsSheets else {
            // Started where there is no display (an activation environment without one):
            // the command line shows the sheet itself, on its own display.
            return answer(ServiceProtocol.Answer(status: ServiceProtocol.noDisplay, report: nil,
                                                  message: tr("the desktop service has no display to show a sheet on")))
        }
        // The chooser, when it asks first, spends the click's token; the sheet after it has none.
        let token = ClickToken(request.activationToken)
        let parent = ParentWindow(request.parentWindow)
        let showSheet = { [self] (setUp: Bool) -> Void in
            openSheet(start.email, source: start.source, session: session, token: token.take(), parent: parent,
                      attachmentsRequestedBy: request.requestedBy, setUp: setUp) { [self] host, warnings in
                conclude(host, warnings: warnings, notify: request.notify) { report in
                    answer(SheetDelivery.outcome(report))
                }
            }
        }
        // A link that can go several ways asks once first (the plan's .choose): as the caller
        // planned it, with the ways it offers, else as planned here.
        if let email = start.email, let ways = chooserWays(request, email: email, source: start.source, session: session) {
            choose(email, ways: ways, session: session, token: token.take(), parent: parent, notify: request.notify,
                   requestedBy: request.requestedBy, sheet: showSheet, done: { answer(SheetDelivery.outcome($0)) })
            return
        }
        showSheet(false)
    }

    /// The ways the chooser offers for `request`, or `nil` when its plan is the sheet: the
    /// caller's plan when it sent one, else the plan made here.
    private func chooserWays(_ request: ServiceProtocol.Request, email: EmailData, source: SheetSource, session: Session) -> [Way]? {
        switch request.plan {
        case .choose(let offered)?: offered.map(Way.init(offered:))
        case .sheet?: nil
        case nil: ChooserDelivery.wantsChooser(email, source: source, session: session) ? session.ways() : nil
        }
    }

    /// The chooser of `ways` (the session's, unless given) for a link's `email` (or, with
    /// `source` `.portal`, for the application `application`'s); what the person chose is
    /// carried out: `sheet` for an account (or setting one up), else routed as a run does,
    /// `done` hearing the report.
    @discardableResult
    private func choose(
        _ email: EmailData, ways given: [Way]? = nil, session: Session, token: String?, parent: ParentWindow? = nil, notify: Bool,
        requestedBy: String? = nil,
        source: SheetSource = .link, application app: String? = nil,
        sheet: @escaping (_ setUp: Bool) -> Void, done: @escaping @Sendable (RouteReport) -> Void
    ) -> any SheetWindow {
        let ways = given ?? session.ways()
        var content = ChooserDelivery.content(for: email, ways: ways, session: session, source: source, application: app)
        content.parentWindow = parent
        return application.openChooser(content, activationToken: token) { [self] answer in
            switch ChooserDelivery.outcome(of: answer, ways: ways, email: email, session: session, requestedBy: requestedBy,
                                           source: source, application: app) {
            case .sheet(let setUp): sheet(setUp)
            case .route(let request): route(request, session: session, notify: notify, then: done)
            case .cancelled(let report): done(report)
            }
        }
    }

    /// The command line's `Copy` (`mailto-route copy`, a link kept with Always): `text` on
    /// this program's display's clipboard, held until another program takes it.
    public func copy(_ text: String) throws(DesktopError) {
        do throws(ServiceError) {
            try application.copy(text)
        } catch {
            throw DesktopError(.permanent, error.description)
        }
    }

    /// A caller's request is under way: the program stays for it.
    public func hold() { application.hold() }
    public func release() { application.release() }

    /// GLib's `Open` of the D-Bus activatable entry: each URI as a clicked link.
    public func open(_ uris: [String]) {
        for uri in uris {
            let url = Self.mailtoURL(uri)
            let session = context.session()
            // GIO's launch of the D-Bus activatable entry.
            session.arrival = Arrival(kind: .gioLaunch)
            guard case .success(let email) = SheetDelivery.parse(url, session: session) else { continue }
            var request = RouteRequest(email: email, source: .link)
            request.sheet = true
            let plan = session.plan(request)
            let wantsSheet = plan == .sheet || plan == .choose
            let showSheet = { [self] (setUp: Bool) -> Void in
                openSheet(email, source: .link, session: session, token: nil, setUp: setUp) { [self] host, warnings in
                    conclude(host, warnings: warnings, notify: true) { _ in }
                }
            }
            if plan == .choose, application.showsSheets {
                choose(email, session: session, token: nil, notify: true, sheet: showSheet, done: { _ in })
            } else if wantsSheet, application.showsSheets {
                showSheet(false)
            } else {
                // The path the command line takes for a link.
                request.sheet = false
                route(request, session: session, noSheet: wantsSheet) { _ in }
            }
        }
    }

    /// GLib hands a `mailto:` URI to `Open` as a GFile's URI, which may come back as
    /// `mailto:///ADDRESS`: the empty authority is not part of the address.
    static func mailtoURL(_ uri: String) -> String {
        let prefix = "mailto:///"
        guard uri.hasASCIICaseInsensitivePrefix(prefix) else { return uri }
        return "mailto:" + uri.dropFirst(prefix.count)
    }

    /// The Email portal's `ComposeEmail`, as the plan says: the sheet, the application's
    /// files ticked and the application named; with `policy=handoff`, no account, or no
    /// display to show the sheet on, a handoff that carries the files on the mail
    /// program's own command line, else a draft.
    public func composeEmail(_ request: PortalEmailRequest, respond: @escaping @Sendable (UInt32) -> Void) -> (any WithdrawableRequest)? {
        composeEmailWindow(request, respond: respond).map(PortalRequest.init)
    }

    /// `composeEmail`'s window: the chooser (then its sheet), the sheet, or none.
    private func composeEmailWindow(_ request: PortalEmailRequest, respond: @escaping @Sendable (UInt32) -> Void) -> (any SheetWindow)? {
        let session = context.session()
        session.arrival = Arrival(kind: .emailPortal, requester: request.appID.isEmpty ? nil : request.appID)
        var email = EmailData()
        // An application may give `Name <address>`: read as a typed list, the name kept;
        // one that does not read is taken as it is, for the sheet or the builder to refuse.
        for (given, field) in [(request.to, \EmailData.to), (request.cc, \.cc), (request.bcc, \.bcc)] {
            for text in given where (try? email.addRecipients(text, to: field)) == nil { email[keyPath: field].append(text) }
        }
        email.subject = request.subject
        email.body = request.body
        // Host paths the portal's frontend made from descriptors it checked: the
        // application's own files (docs/design.md rule 8: a local program's hand).
        email.attachments = request.attachments.map { Attachment.file($0) }
        var routed = RouteRequest(email: email, source: .portal)
        let app = request.appID.isEmpty ? nil : request.appID
        routed.requestingApplication = app
        // Someone who never chose mailto-route, on a machine where its package made it the
        // Email portal's backend (xdg-desktop-portal 1.16 has one for every user): what the
        // GTK backend would do, the message and the application's files in the desktop's
        // mail program, answered once it has them. With no mail program to go to, the
        // request is routed as for anyone (the chooser).
        if !session.services.mailPrograms.mailtoRouteIsChosen(), case .success = session.destination() {
            routed.forcedPath = .handoff
            route(routed, session: session, noSheet: false) { report in respond(Self.portalResponse(report)) }
            return nil
        }
        routed.sheet = true
        let plan = session.plan(routed)
        let wantsSheet = plan == .sheet || plan == .choose
        let token = ClickToken(request.activationToken)
        let parent = ParentWindow(request.parentWindow)
        if plan == .choose, application.showsSheets {
            // The application's first request asks once; Always is kept for its app id. The
            // handle withdraws the chooser, then the sheet it opened.
            var handle: (any SheetWindow)?
            handle = choose(email, session: session, token: token.take(), parent: parent, notify: true, source: .portal,
                            application: app,
                            sheet: { [self] setUp in
                                let opened = openSheet(email, source: .portal, session: session, token: token.take(), parent: parent,
                                                       requestedBy: app, setUp: setUp) { [self] host, warnings in
                                    conclude(host, warnings: warnings, notify: true) { report in respond(report.map(Self.portalResponse) ?? 2) }
                                }
                                handle?.follow(opened)
                            }, done: { respond(Self.portalResponse($0)) })
            return handle
        }
        guard wantsSheet, application.showsSheets else {
            routed.sheet = false
            route(routed, session: session, noSheet: wantsSheet) { report in
                respond(Self.portalResponse(report))
            }
            return nil
        }
        return openSheet(email, source: .portal, session: session, token: token.take(), parent: parent,
                         requestedBy: request.appID.isEmpty ? nil : request.appID) { [self] host, warnings in
            conclude(host, warnings: warnings, notify: true) { report in
                respond(report.map(Self.portalResponse) ?? 2)
            }
        }
    }

    /// The portal's response: 0 for what the user chose (sent, queued, handed off,
    /// saved), 1 cancelled, 2 anything else.
    public nonisolated static func portalResponse(_ report: RouteReport) -> UInt32 {
        switch report.result {
        case .sent, .queued, .handedOff, .saved, .copied: 0
        case .cancelled: 1
        case .failed: 2
        }
    }

    /// Routes `request` as a run does (route, report, quick flush, log: `Session.run`) off
    /// the main loop: a handoff watches its program for up to two seconds, and a flush
    /// talks to the server. The report is told in a notification back on the main loop.
    /// `noSheet`: the plan would have shown the sheet, had there been a display; the
    /// report says so.
    private func route(
        _ request: RouteRequest, session: Session, noSheet: Bool = false, notify: Bool = true,
        then: @escaping @Sendable (RouteReport) -> Void
    ) {
        var noted = request
        if noSheet { noted.warnings.append(tr("no compose sheet: the desktop service has no display to show one on")) }
        let box = SessionBox(session)
        application.inBackground({ [noted] () -> RouteReport in
            box.session.run(noted) { _ in }
        }, then: { [self] report in
            if notify { tell(report) }
            then(report)
        })
    }

    /// The end of a sheet's run off the main loop (its quick flush may talk to the server
    /// for as long as the server takes, and the other sheets stay responsive): the report,
    /// with what the sheet's start had to say, told in a notification back on the main
    /// loop when nobody is at the caller's terminal. `nil`: the sheet ended without one.
    private func conclude(
        _ host: SheetDeliveryHost, warnings: [String], notify: Bool, then: @escaping @Sendable (RouteReport?) -> Void
    ) {
        guard var report = host.report else { return then(nil) }
        report.warnings = warnings + report.warnings
        application.inBackground({ [report] () -> RouteReport in
            host.finish(report)
            return report
        }, then: { [self] report in
            if notify, report.result != .cancelled { tell(report) }
            then(report)
        })
    }

    @discardableResult
    private func openSheet(
        _ email: EmailData?, source: SheetSource, session: Session, token: String?, parent: ParentWindow? = nil, requestedBy: String? = nil,
        attachmentsRequestedBy: String? = nil, setUp: Bool = false, ended: @escaping (SheetDeliveryHost, [String]) -> Void
    ) -> any SheetWindow {
        var start = SheetDelivery.start(email, source: source, session: session, attachmentsRequestedBy: attachmentsRequestedBy)
        start.content.requestingApplication = requestedBy
        start.content.parentWindow = parent
        start.content.opensSetup = setUp
        let host = SheetDeliveryHost(source: source, session: session)
        let warnings = start.warnings
        let handle = application.open(start.content, host: host, recovery: start.recovery, activationToken: token)
        host.onClosed = { [self] in
            // Its held Send went (or was undone): the notification with Undo goes with it,
            // replaced by what came of it when that is told.
            for (id, held) in heldSheets where held === handle {
                heldSheets[id] = nil
                application.withdrawNotification(id: "outbox-\(id)")
            }
            ended(host, warnings)
        }
        host.onHeldWindowClosed = { [self] report in tellHeld(report, sheet: handle) }
        return handle
    }

    /// The window of a held Send was closed: Undo moves to a notification, which the
    /// sheet's end withdraws (or what came of the message replaces).
    private func tellHeld(_ report: RouteReport, sheet: any SheetWindow) {
        guard let id = report.outboxId else { return }
        heldSheets[id] = sheet
        application.notify(id: "outbox-\(id)", title: report.headline, body: report.notificationLines.joined(separator: "\n"),
                           urgent: false, buttons: [NotificationButton(label: tr("Undo"), action: Self.undoSendAction, target: id)])
    }

    /// **Undo** of a held Send: the sheet that holds it takes it back and shows again.
    /// When that sheet is gone (the service was restarted since, the claim died with it),
    /// the entry is taken out of the outbox under a claim of its own, if no attempt at it
    /// began, and saved as a draft (rule 3), told with **Open**; if it went, that is said.
    private func undoSend(_ id: String) {
        application.withdrawNotification(id: "outbox-\(id)")
        if let sheet = heldSheets.removeValue(forKey: id), sheet.undoSend() { return }
        let box = SessionBox(context.session())
        application.inBackground({ () -> RouteReport in
            let session = box.session
            var report = RouteReport(path: .outbox, result: .saved)
            do {
                let bytes = try session.storage.outbox.undo(id, now: session.services.clock.now())
                report.draft = try session.storage.drafts.save(bytes).path
                report.warnings.append(tr("Send undone: the message is saved as a draft"))
            } catch {
                // Too late (it went, or is going), or the draft could not be written.
                report.result = .failed
                report.outboxId = id
                report.error = Failure(error, otherwise: .permanent)
            }
            session.log(report, source: .outbox)
            return report
        }, then: { [self] report in tell(report) })
    }

    // MARK: - Notifications and their actions

    /// Tells `report` in a notification with the button that follows from it: **Retry
    /// now** for a queued message, **Open** for a saved draft. The notification's id names
    /// the outbox entry or draft, so that a later one about it replaces it.
    func tell(_ report: RouteReport) {
        guard role == .service else {
            // One request's program: nothing of it outlives it to take a button.
            context.services.notifier.tell(report)
            return
        }
        // A message the service queued itself: it owns the outbox from now (a flush's own
        // reports are rescheduled by the flush).
        if report.result == .queued, !owningOutbox { ownOutbox() }
        var id = "report"
        var buttons: [NotificationButton] = []
        if report.result == .queued, let outboxID = report.outboxId {
            id = "outbox-\(outboxID)"
            // Held until a chosen time (Send Later): the button lets it go now.
            buttons.append(NotificationButton(label: report.hold == nil ? tr("Retry now") : tr("Send now"), action: "retry-outbox",
                                              target: outboxID))
        } else if let outboxID = report.outboxId {
            id = "outbox-\(outboxID)"
        } else if report.result == .saved, let draft = report.draft {
            id = "draft-\(draft)"
            buttons.append(NotificationButton(label: tr("Open"), action: "open-draft", target: draft))
        }
        application.notify(id: id, title: report.headline, body: report.notificationLines.joined(separator: "\n"),
                           urgent: report.needsTheUser, buttons: buttons)
    }

    /// A notification's button. Idempotent: the id names one outbox entry or draft, and
    /// one that is gone (sent by an earlier click) does nothing.
    public func activate(_ action: String, parameter: String) {
        switch action {
        case "retry-outbox": retry(parameter)
        case "open-draft": openDraft(parameter)
        case SheetService.ownOutboxAction: ownOutbox()
        case Self.undoSendAction: undoSend(parameter)
        case SheetService.signInAgainAction: tellSignIn(parameter)
        case Self.openOnlineAccountsAction:
            // GNOME Settings not installed: the notification said where to go.
            try? OnlineAccounts.openSettings(account: parameter.isEmpty ? nil : parameter)
        default: break
        }
    }

    /// Tells that the account `name` must be signed in again, with **Sign in again**, which
    /// opens GNOME Settings' Online Accounts on it. One notification per account: a later
    /// one replaces it.
    private func tellSignIn(_ name: String) {
        let box = SessionBox(context.session())
        application.inBackground({ box.session.signInRequest(for: name) }, then: { [self] request in
            guard let request else { return }
            application.notify(id: "sign-in-\(name)", title: request.summary, body: request.details.joined(separator: "\n"),
                               urgent: true, buttons: [NotificationButton(label: tr("Sign in again"), action: Self.openOnlineAccountsAction,
                                                                          target: request.onlineAccountID)])
        })
    }

    /// Sends the queued message `id` now, once: the outbox's claim makes a second click
    /// (or a flush at the same time) find it taken or gone, and send nothing.
    private func retry(_ id: String) {
        let box = SessionBox(context.session())
        application.inBackground({ () -> RouteReport? in
            let session = box.session
            let outbox = session.storage.outbox
            guard (try? outbox.entry(id)) != nil, (try? outbox.retry(id, now: session.services.clock.now())) != nil else { return nil }
            let flushed = try? session.flushOutbox(allQueued: true, selecting: { $0.id == id })
            return flushed?.routeReports.first
        }, then: { [self] report in
            if let report {
                tell(report)
            } else {
                application.withdrawNotification(id: "outbox-\(id)")
            }
            // Nothing queued any more: the service need not stay for the outbox.
            scheduleOutbox()
        })
    }

    /// Opens a saved draft (its path) with the desktop's program for messages; a draft
    /// that is gone (sent or dropped since) does nothing.
    private func openDraft(_ path: String) {
        let drafts = context.paths.storage.drafts.directory
        guard path.hasPrefix(drafts + "/"), !path.contains("/../"), access(path, R_OK) == 0 else {
            application.withdrawNotification(id: "draft-\(path)")
            return
        }
        do {
            try application.showFile(path)
        } catch {
            try? application.showFile(drafts)
        }
    }

    // MARK: - The outbox while anything is queued

    /// The service owns the outbox while anything is queued ("it will be retried" is a
    /// promise): it stays running, sends each message at its next attempt and when the
    /// network comes back, tells what came of it (a queued one with **Retry now**, whose
    /// notification then always reaches a running service), and lets itself quit once
    /// the outbox holds nothing queued. Started by the command line's runs that queue, and
    /// by the service's own sheets.
    private var owningOutbox = false
    /// Bumped at each new schedule: a timer of an older one finds itself stale.
    private var outboxSchedule = 0

    func ownOutbox() {
        guard role == .service else { return }
        if !owningOutbox {
            owningOutbox = true
            application.hold()
        }
        scheduleOutbox()
    }

    /// A timer for the earliest next attempt (at most `longestWait` away: messages other
    /// runs queue meanwhile are found this late at most), or the end of owning.
    private func scheduleOutbox() {
        guard owningOutbox else { return }
        outboxSchedule += 1
        let schedule = outboxSchedule
        let queued = (try? context.paths.storage.outbox.list()) ?? []
        guard let next = queued.map(\.nextAttempt).min() else {
            owningOutbox = false
            application.release()
            return
        }
        // At least a second: a message due now that a sheet still holds (its Undo time just
        // ended, and it is sending it) is left to it, not asked for again and again.
        let wait = min(max(next.secondsSinceEpoch - context.services.clock.now().secondsSinceEpoch, 1), Self.longestWait)
        application.after(seconds: UInt32(wait)) { [self] in
            guard schedule == outboxSchedule else { return }
            flushDue()
        }
    }

    public static let longestWait: Int64 = 60

    /// Sends what is due, as `outbox watch` does; what came of each is told as for a sheet.
    private func flushDue() {
        let box = SessionBox(context.session())
        application.inBackground({ () -> [RouteReport] in
            let session = box.session
            guard !session.accounts.isEmpty, let due = try? session.storage.outbox.due(now: session.services.clock.now()), !due.isEmpty
            else { return [] }
            return (try? session.flushOutbox(now: session.services.clock.now()))?.routeReports ?? []
        }, then: { [self] reports in
            for report in reports { tell(report) }
            scheduleOutbox()
        })
    }

    /// The network came back: what is due goes out now.
    public func networkAvailable() {
        flushDue()
    }
}

/// A portal request's window as `ServiceServer` withdraws it (`Request.Close`), on the main
/// loop: the conformance is checked there at run time, as the server is not on the actor.
@GLibMainActor
final class PortalRequest: @preconcurrency WithdrawableRequest {
    let window: any SheetWindow

    init(_ window: any SheetWindow) {
        self.window = window
    }

    func withdraw() {
        window.withdraw()
    }
}

/// A Session handed to the one worker thread that uses it while the main thread waits for
/// the result: never used by two threads at once, hence `@unchecked`.
final class SessionBox: @unchecked Sendable {
    let session: Session
    init(_ session: Session) { self.session = session }
}
