public import DesktopIntegration
import MIMEMessage
public import SMTPTransport

/// What a run reaches outside this process through: the SMTP server, the mail program, the
/// person asked for consent, the desktop's notifications, the time, GNOME Online Accounts.
/// Each is a protocol with
/// the real thing as the default (`Services.system`), so that the Router, the submit step
/// and the plan run in-process with fakes in the tests (docs/style.md 13), while the
/// end-to-end tests keep one run per path with the real ones.
public struct Services {
    public var transport: any Transport
    public var mailPrograms: any MailProgramFinder
    public var consent: any ConsentAsker
    public var notifier: any Notifier
    public var clock: any WallClock
    /// The accounts and credentials of GNOME Online Accounts.
    public var onlineAccounts: any OnlineAccountsSource
    /// DNS, HTTPS, the probe and the keyring, for setting up an account (`SendingSetup`).
    public var mailServers: any MailServerNetwork
    /// Asks the desktop service to own the outbox, a run having left a message queued
    /// ("it will be retried": `SheetService.ownOutbox`).
    public var ownOutbox: @Sendable () -> Void = { SheetService.ownOutbox() }
    /// The desktop's clipboard, for Copy Address: the desktop service holds it
    /// (`SheetService.copy`), as a process that ends cannot.
    public var clipboard: any Clipboard = DesktopServiceClipboard()
    /// The account's own mailbox, where a webmail handoff stores the message as a draft.
    public var draftsMailbox: any DraftsMailbox = IMAPDraftsMailbox()

    public init(transport: any Transport, mailPrograms: any MailProgramFinder, consent: any ConsentAsker,
                notifier: any Notifier, clock: any WallClock, onlineAccounts: any OnlineAccountsSource = GnomeOnlineAccounts(),
                mailServers: any MailServerNetwork = LiveMailServerNetwork()) {
        self.transport = transport
        self.mailPrograms = mailPrograms
        self.consent = consent
        self.notifier = notifier
        self.clock = clock
        self.onlineAccounts = onlineAccounts
        self.mailServers = mailServers
    }

    /// libcurl, GIO's mail programs and webmail, the terminal or a notification, the
    /// notification server, the system clock, goa-daemon on the session bus, and for a
    /// setup GIO's resolver, libcurl and libsecret.
    public static var system: Services {
        Services(transport: CurlTransport(), mailPrograms: DesktopMailPrograms(), consent: PersonAtTheDesktop(),
                 notifier: DesktopNotifier(), clock: SystemClock(), onlineAccounts: GnomeOnlineAccounts())
    }
}

// MARK: - SMTP

/// Opens connections to a submission server.
public protocol Transport {
    /// A connection to `server` (it may connect only with its first message).
    func connect(_ server: SMTPServer) throws(SMTPError) -> any MailConnection
}

/// One connection to a submission server, kept for the messages of a run.
public protocol MailConnection: AnyObject {
    /// The server, as connected to.
    var server: SMTPServer { get }
    /// Sends a message built now, streamed as it goes; `progress` hears the bytes sent of
    /// the total. Returns when at least one recipient was accepted.
    func send(_ message: OutgoingMessage, progress: (@Sendable (Int, Int) -> Void)?, stop: SendStop?) throws(SMTPError) -> SMTPReceipt
    /// Sends stored bytes (a draft, an outbox entry) as they are. Each `send` ends early when
    /// `stop` is asked before the end of the message goes out (`SMTPError` with cause
    /// `.stopped`).
    func send(_ message: RawMessage, stop: SendStop?) throws(SMTPError) -> SMTPReceipt
}

/// libcurl (`SMTPSession`).
struct CurlTransport: Transport {
    func connect(_ server: SMTPServer) throws(SMTPError) -> any MailConnection {
        try SMTPSession(server)
    }
}

extension SMTPSession: MailConnection {}

// MARK: - The Drafts mailbox

/// The Drafts mailbox of an account's IMAP server.
public protocol DraftsMailbox {
    /// Stores `message` there, flagged `\Draft`; `server` has its credentials.
    func store(_ message: [UInt8], on server: SMTPServer) throws(SMTPError) -> StoredDraft
}

/// libcurl (`IMAPDraftStore`).
struct IMAPDraftsMailbox: DraftsMailbox {
    func store(_ message: [UInt8], on server: SMTPServer) throws(SMTPError) -> StoredDraft {
        try IMAPDraftStore.store(message, on: server)
    }
}

// MARK: - The mail program

/// The mail program (or webmail service) a handoff goes to.
public protocol MailProgram {
    /// A desktop id (`thunderbird.desktop`) or `webmail:SERVICE`.
    var id: String { get }
    var name: String { get }
    /// Gives it `email`. `loopGuard` is this run's `MAILTO_ROUTE_HANDOFF` (rule 5);
    /// `filesDirectory`, where the files it reads later go (`StorageLocations.handoffDirectory`).
    func take(_ email: EmailData, loopGuard: String?, filesDirectory: String) throws -> HandoffResult
    /// For a webmail service, the page of its drafts view for the account `address`:
    /// a known service's own, or for a template (`handler=webmail:https://…`) `template`
    /// (`webmail-drafts=`) expanded; `nil` for a mail program, or a template without one.
    /// Throws why `template` cannot be used.
    func draftsURL(of address: String, template: String?) throws -> String?
    /// Opens `url` (its `draftsURL`) in the browser: a message was just stored there.
    func openDrafts(at url: String, loopGuard: String?) throws -> HandoffResult
    /// For a webmail way of one account (`webmail:gmail:jane@gmail.com`), its address: the
    /// account whose Drafts a draft goes to. `nil` for any other.
    var account: String? { get }
}

extension MailProgram {
    /// Of no account in particular.
    public var account: String? { nil }

    /// A mail program of its own: the message goes to it, not to a mailbox.
    public func draftsURL(of address: String, template: String?) throws -> String? { nil }

    public func openDrafts(at url: String, loopGuard: String?) throws -> HandoffResult {
        throw DesktopError(.permanent, tr("%@ has no drafts view", name))
    }
}

/// Finds where a handoff goes.
public protocol MailProgramFinder {
    /// `handler` when given (the `[route]` group's `handler=`), else the desktop's choice;
    /// never mailto-route itself. Throws why there is nowhere to go. `paths` are the run's
    /// (the default `register` remembered, the config file a mistake names); a webmail
    /// page opens in `browser`.
    func find(configured handler: String?, browser: WebmailBrowser, paths: Paths) throws -> any MailProgram
    /// Every mail program and webmail service a link can be handed to now, for the chooser
    /// (`Session.ways`): each that can start, the default first; `handler` is `handler=`
    /// (a webmail template it names is a way too).
    func ways(configured handler: String?, paths: Paths) -> [Way]
    /// Whether the person chose mailto-route for `mailto:` links (the desktop's default
    /// handler is mailto-route: `mailto-route register`). An application's Email portal
    /// request of someone who did not goes to their own mail program.
    func mailtoRouteIsChosen() -> Bool
}

extension MailProgramFinder {
    /// Chosen, for a finder that knows no desktop.
    public func mailtoRouteIsChosen() -> Bool { true }

    /// The one program `find` finds, for a finder that knows no other.
    public func ways(configured handler: String?, paths: Paths) -> [Way] {
        guard let program = try? find(configured: handler, browser: WebmailBrowser(), paths: paths) else { return [] }
        let kind = Way.kind(ofID: program.id)
        return [Way(kind: kind, name: program.name, origin: program.id)]
    }
}

/// GIO's `mailto:` handlers and the webmail services (`Handoff`).
struct DesktopMailPrograms: MailProgramFinder {
    func find(configured handler: String?, browser: WebmailBrowser, paths: Paths) throws -> any MailProgram {
        try Handoff.destination(configured: handler, browser: browser, paths: paths)
    }

    func ways(configured handler: String?, paths: Paths) -> [Way] {
        Handoff.ways(configured: handler)
    }

    func mailtoRouteIsChosen() -> Bool {
        Handlers.defaultForScheme("mailto")?.isMailtoRoute == true
    }
}

extension Handoff.Destination: MailProgram {
    public func take(_ email: EmailData, loopGuard: String?, filesDirectory: String) throws -> HandoffResult {
        try Handoff.handOff(email, to: self, loopGuard: loopGuard, files: HandoffFiles(directory: filesDirectory))
    }

    public func draftsURL(of address: String, template: String?) throws -> String? {
        guard case .webmail(let service) = target else { return nil }
        return try service.draftsURL(of: address, template: template)
    }

    public func openDrafts(at url: String, loopGuard: String?) throws -> HandoffResult {
        guard case .webmail(let service) = target else { throw DesktopError(.permanent, tr("%@ has no drafts view", name)) }
        try Handoff.checkLoopGuard(loopGuard)
        return try Webmail.openDrafts(at: url, in: service, browser: browser, warnings: warnings)
    }

    public var account: String? {
        if case .webmail(let service) = target { service.account } else { nil }
    }
}

// MARK: - Consent, notifications, time

/// Asks a person whether a link's message may be sent (rule 1).
public protocol ConsentAsker {
    /// The answer; anything that keeps the question from being asked or answered within
    /// `timeout` seconds is `.notConsented`, never `.send`.
    func ask(_ question: ConsentQuestion, channel: ConsentChannel, timeout: Double) -> ConsentDecision
}

/// The terminal when there is one, else a notification with buttons (`askConsent`).
struct PersonAtTheDesktop: ConsentAsker {
    func ask(_ question: ConsentQuestion, channel: ConsentChannel, timeout: Double) -> ConsentDecision {
        askConsent(question, channel: channel, timeout: timeout)
    }
}

/// Tells the person what came of a run they cannot otherwise see (a clicked link).
public protocol Notifier {
    /// Throws when it could not be shown (no notification server).
    func show(summary: String, details: [String], urgent: Bool) throws
    /// Tells the person that `request.account` must be signed in again, with a way to do
    /// it (GNOME Settings' Online Accounts). Called once per refusal (`AccountMemory`).
    func askToSignIn(_ request: SignInRequest) throws
}

extension Notifier {
    /// A notification that says what to do, for a notifier with no button to offer.
    public func askToSignIn(_ request: SignInRequest) throws {
        try show(summary: request.summary, details: request.details, urgent: true)
    }
}

extension Notifier {
    /// What came of a route, for someone who could not see it happen (a clicked link):
    /// the headline ("Sent to Ann Berg"), then each line of the report. Not shown: nobody
    /// to tell (the outcome log still says it).
    public func tell(_ report: RouteReport) {
        try? show(summary: report.headline, details: report.notificationLines, urgent: report.needsTheUser)
    }
}

/// The desktop's notification server (`showReportNotification`).
struct DesktopNotifier: Notifier {
    func show(summary: String, details: [String], urgent: Bool) throws {
        try showReportNotification(summary: summary, details: details, urgent: urgent)
    }

    /// The desktop service shows it, with **Sign in again** (its button must reach a
    /// program that is still running when it is pressed); where there is no service, a
    /// notification that says what to do.
    func askToSignIn(_ request: SignInRequest) throws {
        if SheetService.askToSignIn(account: request.account) { return }
        try show(summary: request.summary, details: request.details, urgent: true)
    }
}

// MARK: - The clipboard

/// The desktop's clipboard (the `CLIPBOARD` selection), which Copy Address puts a link's
/// addresses on.
public protocol Clipboard {
    /// Puts `text` on the clipboard, held by a program that outlives this run. Throws why
    /// it could not: no display, no desktop service.
    func copy(_ text: String) throws(DesktopError)
}

/// The desktop service's `Copy`, which holds the clipboard after this run has ended.
struct DesktopServiceClipboard: Clipboard {
    func copy(_ text: String) throws(DesktopError) {
        try SheetService.copy(text)
    }
}

// MARK: - GNOME Online Accounts

/// GNOME Online Accounts: its mail accounts, and their credentials at each attempt.
public protocol OnlineAccountsSource {
    /// The accounts that send mail now; empty when there is no GNOME Online Accounts.
    func mailAccounts() throws -> [OnlineMailAccount]
    /// `EnsureCredentials`, then `GetAccessToken`.
    func accessToken(for account: OnlineMailAccount) throws(OnlineAccountsError) -> String
    /// `GetPassword("smtp-password")`.
    func smtpPassword(for account: OnlineMailAccount) throws(OnlineAccountsError) -> String
    /// `GetPassword("imap-password")`.
    func imapPassword(for account: OnlineMailAccount) throws(OnlineAccountsError) -> String
    /// Whether GNOME Online Accounts can be asked now (running, or startable on the bus):
    /// where the sheet offers to use it.
    var isAvailable: Bool { get }
}

/// goa-daemon on the session bus (`OnlineAccounts`).
public struct GnomeOnlineAccounts: OnlineAccountsSource {
    public init() {}

    public var isAvailable: Bool { OnlineAccounts.isOnBus() }

    public func mailAccounts() throws -> [OnlineMailAccount] {
        try OnlineAccounts.mailAccounts()
    }

    public func accessToken(for account: OnlineMailAccount) throws(OnlineAccountsError) -> String {
        try OnlineAccounts.accessToken(account)
    }

    public func smtpPassword(for account: OnlineMailAccount) throws(OnlineAccountsError) -> String {
        try OnlineAccounts.smtpPassword(account)
    }

    public func imapPassword(for account: OnlineMailAccount) throws(OnlineAccountsError) -> String {
        try OnlineAccounts.imapPassword(account)
    }
}

/// The time, for what is due in the outbox.
public protocol WallClock {
    func now() -> Timestamp
}

struct SystemClock: WallClock {
    func now() -> Timestamp { .now() }
}
