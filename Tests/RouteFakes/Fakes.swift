import Foundation
import MailtoRoute
import MIMEMessage
import Outbox
import SMTPTransport

// Fakes for what a Session reaches outside the process (`Services`), for in-process tests of
// the Router and the command line: each records what it was asked and answers as told.

/// A Session on a temporary directory, with fakes for everything outside the process.
/// A Session's world on a temporary directory (the outbox and drafts on disk), with fakes
/// for everything outside the process.
public final class FakeWorld: @unchecked Sendable {
    public enum AccountSetup { case none, usable }

    public let root: URL
    public let paths: Paths
    public let transport = FakeTransport()
    public let mailPrograms = FakeMailPrograms()
    public let consent = FakeConsent()
    public let notifier = FakeNotifier()
    public let clock = FakeClock()
    public let onlineAccounts = FakeOnlineAccounts()
    public let draftsMailbox = FakeDraftsMailbox()
    public private(set) var session: Session

    public init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("routing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        paths = Paths(home: root.path, configHome: root.path + "/config", dataHome: root.path + "/data", stateHome: root.path + "/state")
        var services = Services(transport: transport, mailPrograms: mailPrograms, consent: consent, notifier: notifier,
                                clock: clock, onlineAccounts: onlineAccounts)
        services.draftsMailbox = draftsMailbox
        session = Session(paths: paths, configuration: Self.configuration(paths, .usable, policy: "ask"), services: services)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    public var services: Services { session.services }

    /// The config file's text: a `[route]` group, and an account on 127.0.0.1:2525 unless `.none`.
    public static func configText(_ account: AccountSetup, policy: String) -> String {
        var text = "[route]\npolicy=\(policy)\n"
        if account == .usable {
            text += "[account]\nfrom=Jane Doe <jane@example.org>\nhost=127.0.0.1\nport=2525\nsecurity=none\n"
        }
        return text
    }

    private static func configuration(_ paths: Paths, _ account: AccountSetup, policy: String) -> Configuration {
        configuration(configText(account, policy: policy))
    }

    private static func configuration(_ text: String?) -> Configuration {
        Configuration(config: text.map { (FakeWorld.configPath, .success(($0, 0o600))) })
    }

    static let configPath = "/fake/config"

    /// A new session over the same world (its outbox, drafts and state on disk, its fakes),
    /// with `config` as the config file's text (`nil`: none) and a command's `options`: a
    /// later run.
    @discardableResult
    public func newSession(config: String?, options: Session.Options = Session.Options()) -> Session {
        session = Session(paths: paths, configuration: Self.configuration(config), services: services, options: options)
        return session
    }

    /// Writes the config file at `paths.configFile`, for what reads it from disk (the
    /// command line's context).
    public func writeConfig(_ account: AccountSetup, policy: String = "ask") throws {
        let url = URL(fileURLWithPath: paths.configFile)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Self.configText(account, policy: policy).write(to: url, atomically: false, encoding: .utf8)
        chmod(url.path, 0o600)
    }

    /// A clicked link (`open`), with the account as given.
    public func route(link url: String, account: AccountSetup) -> RouteReport {
        session = Session(paths: paths, configuration: Self.configuration(paths, account, policy: "ask"), services: services)
        guard let email = try? MailtoURL.parse(url) else { preconditionFailure("a test URL that does not parse: \(url)") }
        return session.route(RouteRequest(email: email, source: .link, consentChannel: .notification))
    }

    private func sendRequest(_ recipients: [String]) -> RouteRequest {
        RouteRequest(email: EmailData(to: recipients, subject: "Figures", body: "See attached"), source: .send)
    }

    /// `send` from a script: trusted, no question.
    public func route(send recipients: [String]) -> RouteReport {
        session.route(sendRequest(recipients))
    }

    /// The whole run of `send`: the route, then the quick flush.
    public func run(send recipients: [String]) -> RouteReport {
        session.run(sendRequest(recipients)) { _ in }
    }

    public func drafts() throws -> [Draft] {
        try session.storage.drafts.list()
    }

    public func file(_ name: String, _ contents: String) throws -> String {
        let url = root.appendingPathComponent(name)
        try contents.write(to: url, atomically: false, encoding: .utf8)
        return url.path
    }

    /// Puts a file where the directory `path` would be made.
    public func block(_ path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "".write(to: url, atomically: false, encoding: .utf8)
    }
}

public final class FakeTransport: Transport, @unchecked Sendable {
    public struct Sent: Sendable {
        public var envelopeFrom: String
        public var recipients: [String]
        public var messageId: String?
        /// The server it went to, as connected to: with its credentials.
        public var server: SMTPServer? = nil
    }

    /// One answer per message, in order; when they run out, every recipient is accepted.
    public var answers: [Result<SMTPReceipt, SMTPError>] = []
    public private(set) var sent: [Sent] = []
    public private(set) var connections = 0
    /// Each server connected to, with its credentials, in order.
    public private(set) var servers: [SMTPServer] = []
    /// A server that never answers: a send waits until its Stop ends it, as a real
    /// transfer does (`SendStop`), and a send with no Stop fails at once with a timeout.
    public var silent = false
    /// Signalled when a send began waiting on the silent server.
    public let silentSendBegan = DispatchSemaphore(value: 0)

    public init() {}

    public func connect(_ server: SMTPServer) throws(SMTPError) -> any MailConnection {
        connections += 1
        servers.append(server)
        return Connection(server: server, transport: self)
    }

    fileprivate func answer(_ sent: Sent) throws(SMTPError) -> SMTPReceipt {
        self.sent.append(sent)
        guard !answers.isEmpty else {
            return SMTPReceipt(server: "127.0.0.1:2525", reply: "250 2.0.0 Ok: queued", accepted: sent.recipients)
        }
        return try answers.removeFirst().get()
    }

    /// A send to the silent server: waits, woken by its Stop, until the Stop ends it.
    fileprivate func waitSilently(_ stop: SendStop?) throws(SMTPError) {
        guard let stop else { throw SMTPError(.transient, "no answer within 60 s", cause: .timeout) }
        let wake = DispatchSemaphore(value: 0)
        try stop.whileTransferring(wake: { wake.signal() }) { () throws(SMTPError) in
            silentSendBegan.signal()
            while !stop.endsTransfer() {
                // Refused (taking it out of the outbox failed): the silence is all it gets.
                if let why = stop.refusal { throw SMTPError(.transient, "stop refused (\(why)); no answer", cause: .timeout) }
                wake.wait()
            }
            throw SMTPError(.input, FailureCause.stopped.reason, cause: .stopped)
        }
    }

    public final class Connection: MailConnection {
        public let server: SMTPServer
        let transport: FakeTransport

        init(server: SMTPServer, transport: FakeTransport) {
            self.server = server
            self.transport = transport
        }

        public func send(_ message: OutgoingMessage, progress: (@Sendable (Int, Int) -> Void)?, stop: SendStop?) throws(SMTPError) -> SMTPReceipt {
            if transport.silent { try transport.waitSilently(stop) }
            return try transport.answer(Sent(envelopeFrom: message.from.asciiAddress, recipients: message.recipients.map(\.asciiAddress),
                                      messageId: message.messageID, server: server))
        }

        public func send(_ message: RawMessage, stop: SendStop?) throws(SMTPError) -> SMTPReceipt {
            if transport.silent { try transport.waitSilently(stop) }
            // As the real session: the message is not accepted before `beforeEnd` let it be.
            do { try message.beforeEnd?() } catch { throw SMTPError(.transient, "not sent: \(error)") }
            return try transport.answer(Sent(envelopeFrom: message.envelopeFrom, recipients: message.recipients, messageId: nil, server: server))
        }
    }
}

public struct FakeMailProgram: MailProgram {
    final class Taken: @unchecked Sendable {
        var emails: [EmailData] = []
        var draftsOpened: [String] = []
    }

    public var id = "fake.desktop"
    public var name = "Fake Mail"
    public var failure: DesktopError?
    public var notCarried: [String] = []
    /// A webmail service's drafts view (`draftsURL`), `ADDRESS` standing for the account.
    public var drafts: String?
    /// The account a webmail way of one account opens (`MailProgram.account`).
    public var account: String?
    let record = Taken()
    public var taken: [EmailData] { record.emails }
    /// The drafts views opened, in order.
    public var draftsOpened: [String] { record.draftsOpened }

    public init() {}

    public func take(_ email: EmailData, loopGuard: String?, filesDirectory: String) throws -> HandoffResult {
        if let failure { throw failure }
        record.emails.append(email)
        return HandoffResult(handlerID: id, handlerName: name, warnings: notCarried.map { "not carried: \($0)" },
                             notCarried: notCarried)
    }

    public func draftsURL(of address: String, template: String?) throws -> String? {
        drafts.map { $0.replacingOccurrences(of: "ADDRESS", with: address) }
    }

    public func openDrafts(at url: String, loopGuard: String?) throws -> HandoffResult {
        if let failure { throw failure }
        record.draftsOpened.append(url)
        return HandoffResult(handlerID: id, handlerName: name, warnings: [], notCarried: [])
    }
}

/// The Drafts of an account's IMAP server: records each message stored and the server it
/// went to (with its credentials), and answers as told.
public final class FakeDraftsMailbox: DraftsMailbox, @unchecked Sendable {
    public var answer: Result<String, SMTPError> = .success("Drafts")
    public private(set) var stored: [(message: [UInt8], server: SMTPServer)] = []
    /// Every server a store went to, stored or not.
    public private(set) var attempts: [SMTPServer] = []

    public init() {}

    public func store(_ message: [UInt8], on server: SMTPServer) throws(SMTPError) -> StoredDraft {
        attempts.append(server)
        let mailbox = try answer.get()
        stored.append((message, server))
        return StoredDraft(mailbox: mailbox, server: server.address, user: server.user ?? "")
    }
}

public final class FakeMailPrograms: MailProgramFinder, @unchecked Sendable {
    public var program: FakeMailProgram?
    public var problem = "no mail program in this test"
    /// Whether the desktop's `mailto:` handler is mailto-route (`register`).
    public var chosen = true

    public init() {}

    public func mailtoRouteIsChosen() -> Bool { chosen }

    public func ways(configured handler: String?, paths: Paths) -> [Way] {
        guard let offered else {
            guard let program else { return [] }
            return [Way(kind: Way.kind(ofID: program.id), name: program.name, origin: program.id)]
        }
        return offered
    }

    /// The browser each `find` was told a webmail page opens in, in order.
    public private(set) var browsers: [WebmailBrowser] = []
    /// The `handler` each `find` was asked for, in order (`nil`: the desktop's choice).
    public private(set) var handlers: [String?] = []
    /// The ways offered to the chooser; `nil`: the one `program`.
    public var offered: [Way]?

    public func find(configured handler: String?, browser: WebmailBrowser, paths: Paths) throws -> any MailProgram {
        browsers.append(browser)
        handlers.append(handler)
        guard let program else { throw DesktopError(.permanent, problem) }
        return program
    }
}

public final class FakeConsent: ConsentAsker, @unchecked Sendable {
    public var answer = ConsentDecision.notConsented("nobody to ask in this test")
    public private(set) var asked: [ConsentQuestion] = []

    public init() {}

    public func ask(_ question: ConsentQuestion, channel: ConsentChannel, timeout: Double) -> ConsentDecision {
        asked.append(question)
        return answer
    }
}

public final class FakeNotifier: Notifier, @unchecked Sendable {
    public init() {}

    public private(set) var shown: [(summary: String, details: [String], urgent: Bool)] = []
    /// Each "Sign in again" asked for, in order.
    public private(set) var signIns: [SignInRequest] = []

    public func show(summary: String, details: [String], urgent: Bool) throws {
        shown.append((summary, details, urgent))
    }

    public func askToSignIn(_ request: SignInRequest) throws {
        signIns.append(request)
    }
}

/// GNOME Online Accounts as a test sets it up: its mail accounts, and for each the token
/// or password it hands out now, or the error it answers; every credentials call recorded.
public final class FakeOnlineAccounts: OnlineAccountsSource, @unchecked Sendable {
    public var accounts: [OnlineMailAccount] = []
    /// The access token (OAuth2) or SMTP password each account's credentials call gives, by id.
    public var credentials: [String: String] = [:]
    public var isAvailable = false
    /// What the credentials call of an account answers instead, by id.
    public var failures: [String: OnlineAccountsError] = [:]
    /// `token ID` or `password ID`, one per call.
    public private(set) var calls: [String] = []

    public init() {}

    public func mailAccounts() throws -> [OnlineMailAccount] { accounts }

    public func accessToken(for account: OnlineMailAccount) throws(OnlineAccountsError) -> String {
        calls.append("token \(account.id)")
        return try answer(account)
    }

    public func smtpPassword(for account: OnlineMailAccount) throws(OnlineAccountsError) -> String {
        calls.append("password \(account.id)")
        return try answer(account)
    }

    public func imapPassword(for account: OnlineMailAccount) throws(OnlineAccountsError) -> String {
        calls.append("imap-password \(account.id)")
        return try answer(account)
    }

    private func answer(_ account: OnlineMailAccount) throws(OnlineAccountsError) -> String {
        if let failure = failures[account.id] { throw failure }
        return credentials[account.id] ?? ""
    }

    /// A Google-like account: OAuth2, implicit TLS and STARTTLS both set, no port.
    public static func google(_ id: String, address: String) -> OnlineMailAccount {
        OnlineMailAccount(id: id, providerType: "google", providerName: "Google", presentationIdentity: address,
                          emailAddress: address, smtpHost: "smtp.gmail.com", smtpUseSsl: true, smtpUseTls: true,
                          smtpUserName: address, auth: .oauth2)
    }

    /// An IMAP and SMTP account with a password, whose login is not its address.
    public static func imapSMTP(_ id: String, address: String, login: String, host: String) -> OnlineMailAccount {
        OnlineMailAccount(id: id, providerType: "imap_smtp", providerName: "IMAP and SMTP", presentationIdentity: address,
                          emailAddress: address, name: "Jane Doe", smtpHost: host, smtpUseSsl: false, smtpUseTls: true,
                          smtpUserName: login, auth: .password)
    }
}

public final class FakeClock: WallClock, @unchecked Sendable {
    public var time = Timestamp(secondsSinceEpoch: 1_800_000_000)
    public init() {}
    public func now() -> Timestamp { time }
}
