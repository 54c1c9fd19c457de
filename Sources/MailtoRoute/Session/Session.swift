#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MIMEMessage
public import SMTPTransport

/// One run of mailto-route (a click, a command, one request to the desktop service): what
/// it reads of the world, read once, and what it obtains, obtained at most once. Everything
/// below takes what it needs from here; nothing re-reads the environment or the config
/// file (docs/style.md 12: load once, pass it down).
///
/// - the paths, by GLib's rule (`Paths`);
/// - the configuration: the config files and msmtp's, parsed once (`Configuration`);
/// - the accounts: those of the files and GNOME Online Accounts', listed once (`accounts`);
/// - the credentials: each account's, obtained at most once, and only when a send will
///   happen (GNOME Online Accounts' at each attempt, never kept beyond the run);
/// - the SMTP sessions: one connection per account, shared by the message and the quick
///   flush after it;
/// - the handoff destination, looked up once, and only when a path needs it;
/// - what it reaches outside the process through (`Services`: the real ones, or fakes).
///
/// Not for sharing between threads: a run does one thing at a time.
public final class Session {
    public let paths: Paths
    public let configuration: Configuration
    public let environment: Environment
    public let services: Services
    /// How this run asks for credentials, as its command asked when it was made.
    public let options: Options

    /// Each account's server with its credentials, or why there are none, by name.
    private var credentials: [String: Result<SMTPServer, any Error>] = [:]
    /// The fingerprint of the credential each connection logged in with, by account name.
    private var credentialFingerprints: [String: String] = [:]
    /// Whether this run has asked for a password (`server()`).
    var triedPassword: Bool { !credentials.isEmpty }
    private var connections: [String: Result<any MailConnection, any Error>] = [:]
    private var handoffDestination: Result<any MailProgram, Failure>?
    private var listedAccounts: [AccountSetup]?
    /// `rememberedWay`, once looked up.
    var rememberedWayMemo: WayMemo?
    /// Why GNOME Online Accounts could not be asked for its accounts, if it could not.
    public private(set) var onlineAccountsProblem: String?

    /// What a run needs to know of its environment besides the paths.
    public struct Environment: Sendable {
        /// `MAILTO_ROUTE_HANDOFF`: set when a mail program that mailto-route started
        /// started this run (docs/design.md rule 5).
        public var handoffGuard: String?
        /// A display server to show a window or a keyring prompt on (`WAYLAND_DISPLAY`, `DISPLAY`).
        public var hasDisplay: Bool
        /// The user's editor (`VISUAL`, else `EDITOR`), for `compose`.
        public var editor: String?

        public init(handoffGuard: String? = nil, hasDisplay: Bool = false, editor: String? = nil) {
            self.handoffGuard = handoffGuard
            self.hasDisplay = hasDisplay
            self.editor = editor
        }

        /// This process's.
        public static func current() -> Environment {
            func value(_ name: String) -> String? {
                getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            return Environment(handoffGuard: value(Handoff.loopGuardVariable),
                               hasDisplay: value("WAYLAND_DISPLAY") != nil || value("DISPLAY") != nil,
                               editor: [value("VISUAL"), value("EDITOR")].compactMap { $0?.trimmingSpaces().isEmpty == false ? $0 : nil }.first)
        }
    }

    /// How a run asks for credentials: its command's say, given when the session is made
    /// and never changed after (`check` asks differently from a click).
    public struct Options: Sendable {
        /// How long a password command may take (`check` gives it less: a click would wait).
        public var passwordCommandTimeout: Double
        /// Whether a locked keyring may show its unlock prompt; `nil`: with a display, as
        /// GNOME applications do (`check` never shows one).
        public var passwordMayPrompt: Bool?
        /// Whether the person asked for this run's sending by hand (`outbox retry`, `outbox
        /// flush`): an account whose sign-in was refused is tried again with the credential
        /// it has (`AccountMemory`).
        public var personAsked: Bool

        public init(passwordCommandTimeout: Double = PasswordCommand.timeoutSeconds, passwordMayPrompt: Bool? = nil,
                    personAsked: Bool = false) {
            self.passwordCommandTimeout = passwordCommandTimeout
            self.passwordMayPrompt = passwordMayPrompt
            self.personAsked = personAsked
        }
    }

    /// How this session's request arrived, set by whoever took it in before routing it;
    /// said in its report and its outcome log lines.
    public var arrival: Arrival?

    public init(paths: Paths, configuration: Configuration, environment: Environment = Environment(),
                services: Services = .system, options: Options = Options()) {
        self.paths = paths
        self.configuration = configuration
        self.environment = environment
        self.services = services
        self.options = options
    }

    /// This process's run: its paths, its configuration read now, its environment.
    public static func current() -> Session {
        let paths = Paths.current()
        return Session(paths: paths, configuration: .load(paths), environment: .current())
    }

    public var storage: StorageLocations { paths.storage }
    /// The `[route]` group as read (`route(_:)` is the routing itself).
    public var routeSettings: RouteSettings { configuration.route }
    /// What mailto-route remembers of the accounts (the last one used, refused sign-ins).
    public var accountMemory: AccountMemory { AccountMemory(stateDirectory: storage.stateDirectory) }

    // MARK: - The accounts

    /// Every account, usable or with its mistake, in the documented order: the config
    /// files' account groups, msmtp's accounts (its default first), then GNOME Online
    /// Accounts' mail accounts (by id). GNOME Online Accounts is asked once, the first time.
    public var accounts: [AccountSetup] {
        if let listedAccounts { return listedAccounts }
        var listed = configuration.accounts
        do {
            listed += try services.onlineAccounts.mailAccounts().map { online in
                AccountSetup(name: Account.onlineAccountsPrefix + online.id, origin: .onlineAccounts(online),
                             account: Result { () throws(ConfigurationError) in try Account(online: online, caFile: paths.defaultCAFile) })
            }
        } catch {
            onlineAccountsProblem = tr("GNOME Online Accounts did not answer: %@", Failure(error, otherwise: .transient).message)
        }
        listedAccounts = listed
        return listed
    }

    /// The account that sends when none is chosen: the one `default=` names; else the only
    /// one; else the first in `accounts`' order. `nil` when there is none; a failure when
    /// `default=` names none of them. GNOME Online Accounts is asked only when the files'
    /// accounts do not decide it (they come first), so that a run with a configured
    /// account costs no bus call more than before.
    public var defaultAccountSetup: Result<AccountSetup, ConfigurationError>? {
        if let wanted = routeSettings.defaultAccount {
            guard let found = lookUp(wanted) else {
                let all = accounts
                return .failure(ConfigurationError(
                    tr("default=%@ in [route] names no account (%@)", wanted, all.isEmpty ? tr("there is none") : tr("they are: %@", all.map(\.name).joined(separator: ", ")))))
            }
            return .success(found)
        }
        return (configuration.accounts.first ?? accounts.first).map { .success($0) }
    }

    /// The account `selector` picks, by name or by address (`send --account`, `--from`);
    /// `nil` picks the default. `nil` result: no account at all.
    public func accountSetup(_ selector: String?) -> Result<AccountSetup, ConfigurationError>? {
        guard let selector else { return defaultAccountSetup }
        guard let found = lookUp(selector) else {
            let all = accounts
            return .failure(ConfigurationError(
                tr("no account is named or sends from '%@' (%@)", selector.visible, all.isEmpty ? tr("there is none") : tr("accounts: %@", all.map(\.name).joined(separator: ", ")))))
        }
        return .success(found)
    }

    /// The first account in order that sends from `text` (`jane@example.org`, or `Jane
    /// <jane@example.org>`), its address compared without regard to case.
    public func account(sendingFrom text: String) -> AccountSetup? {
        let address = (try? Mailbox(parsing: text).address) ?? text.trimmingSpaces()
        func sends(_ setup: AccountSetup) -> Bool { (try? setup.account.get().from.address.lowercased()) == address.lowercased() }
        return configuration.accounts.first(where: sends) ?? accounts.first(where: sends)
    }

    /// The account `selector` names or sends from: the files' first, GNOME Online
    /// Accounts' only when they have none (its names, `goa:ID`, are no file's).
    private func lookUp(_ selector: String) -> AccountSetup? {
        Self.find(selector, in: configuration.accounts) ?? Self.find(selector, in: accounts)
    }

    /// By name first, then by address (case-insensitively): the first in order that sends
    /// from it.
    static func find(_ selector: String, in accounts: [AccountSetup]) -> AccountSetup? {
        if let named = accounts.first(where: { $0.name == selector }) { return named }
        let address = selector.lowercased()
        return accounts.first { (try? $0.account.get().from.address.lowercased()) == address }
    }

    /// The default account when it reads; see `defaultAccountSetup` for its mistake.
    public var account: Account? { try? defaultAccountSetup?.get().account.get() }

    /// The account a request sends from: the one it names (`RouteRequest.account`), else
    /// the default.
    public func account(for request: RouteRequest) -> Account? {
        try? accountSetup(request.account)?.get().account.get()
    }

    /// The account the compose sheet offers first: the one last used there, if it is still
    /// set up, else the default.
    public var preferredAccountName: String? {
        if let last = accountMemory.lastUsed, accounts.contains(where: { $0.name == last }) { return last }
        return try? defaultAccountSetup?.get().name
    }

    // MARK: - Credentials

    /// Whether a locked keyring may show its unlock prompt in this run (`Options`).
    public var passwordMayPrompt: Bool { options.passwordMayPrompt ?? environment.hasDisplay }

    /// The default account's server with its password (see `server(for:)`).
    public func server() throws -> SMTPServer {
        try server(for: try defaultAccount())
    }

    /// `account`'s server with its credentials, obtained the first time it is asked for in
    /// this run (a password command runs, the keyring is asked, GNOME Online Accounts hands
    /// out a token or the password) and kept for the rest of the run, never beyond.
    public func server(for account: Account) throws -> SMTPServer {
        try server(for: account, mayPrompt: passwordMayPrompt)
    }

    /// `server(for:)`, with or without the keyring's unlock prompt should the password be
    /// obtained now.
    func server(for account: Account, mayPrompt: Bool) throws -> SMTPServer {
        let obtained = credentials[account.name] ?? obtainCredentials(account, mayPrompt: mayPrompt)
        credentials[account.name] = obtained
        return try obtained.get()
    }

    private func obtainCredentials(_ account: Account, mayPrompt: Bool) -> Result<SMTPServer, any Error> {
        guard let online = account.onlineAccount else {
            return Result { () throws(ConfigurationError) in
                try account.serverWithPassword(commandTimeout: options.passwordCommandTimeout, mayPrompt: mayPrompt)
            }.mapError { $0 }
        }
        return Result { try onlineCredentials(account, online) }
    }

    /// GNOME Online Accounts' credential for `account` now: its access token (after
    /// `EnsureCredentials`) or its SMTP password. Held (`AccountHeld`), the message waiting
    /// in the outbox, when GOA says the account must be signed in again, when it cannot be
    /// asked now, or when the server refused this very credential before and nobody has
    /// acted since (`AccountMemory`).
    private func onlineCredentials(_ account: Account, _ online: OnlineMailAccount) throws -> SMTPServer {
        let memory = accountMemory
        if options.personAsked { memory.clearRefusal(of: account.name) }
        var server = account.server
        let credential: String
        do throws(OnlineAccountsError) {
            switch online.auth {
            case .oauth2:
                if online.attentionNeeded {
                    throw OnlineAccountsError(.notAuthorized, tr("GNOME Online Accounts says %@ needs attention", online.presentationIdentity))
                }
                credential = try services.onlineAccounts.accessToken(for: online)
                server.bearerToken = credential
            case .password, .none:
                credential = try services.onlineAccounts.smtpPassword(for: online)
                server.password = credential
            }
        } catch {
            switch error.kind {
            case .notAuthorized:
                signInNeeded(account, online, fingerprint: AccountMemory.attention, reason: error.message)
                throw AccountHeld(tr("%@ must be signed in again in Settings, Online Accounts (%@); the message waits "
                    + "in the outbox", account.from.address, error.message),
                                  signIn: true)
            case .unavailable:
                throw AccountHeld(tr("%@; the message waits in the outbox", error.message), signIn: false)
            }
        }
        let fingerprint = secretFingerprint(credential)
        if let refused = memory.refusal(of: account.name), refused.fingerprint == fingerprint {
            // The very credential the server refused: not tried again by itself (rule 9).
            throw AccountHeld(tr("%@; not tried again with the same credential until you sign in again in Settings, "
                + "Online Accounts (or run mailto-route outbox retry); the message waits in the outbox", refused.reason),
                              signIn: true)
        }
        credentialFingerprints[account.name] = fingerprint
        return server
    }

    /// Remembers the refusal and, when it is news, tells the person once.
    private func signInNeeded(_ account: Account, _ online: OnlineMailAccount, fingerprint: String, reason: String) {
        guard accountMemory.recordRefusal(of: account.name, fingerprint: fingerprint, reason: reason, now: services.clock.now()) else {
            return
        }
        let request = SignInRequest(account: account.name, address: account.from.address,
                                    provider: online.providerName.isEmpty ? online.providerType : online.providerName,
                                    onlineAccountID: online.id, reason: reason)
        // No notification server: the report, the outcome log and `check` still say it.
        try? services.notifier.askToSignIn(request)
    }

    /// What a failed transfer through `account` means for it: a login the server refused,
    /// for an account of GNOME Online Accounts, holds its messages until the person signs
    /// in again (one notification, `AccountHeld`); any other error is as it was.
    func failure(_ error: any Error, through account: Account) -> any Error {
        guard let online = account.onlineAccount, let smtpError = error as? SMTPError, smtpError.refusedLogin,
              let fingerprint = credentialFingerprints[account.name]
        else { return error }
        signInNeeded(account, online, fingerprint: fingerprint, reason: smtpError.message)
        let held = AccountHeld(tr("%@: sign in again to %@ in Settings, Online Accounts; the message waits in the "
            + "outbox", smtpError.message, account.from.address),
                               signIn: true)
        // Every later message of this run through it waits too, without a second login.
        connections[account.name] = .failure(held)
        return held
    }

    /// `account` sent: a refusal remembered before is over.
    func sent(through account: Account) {
        guard account.onlineAccount != nil, accountMemory.refusal(of: account.name) != nil else { return }
        accountMemory.clearRefusal(of: account.name)
    }

    // MARK: - Connections

    /// The default account, or why there is none to send from.
    func defaultAccount() throws(ConfigurationError) -> Account {
        switch defaultAccountSetup {
        case nil:
            throw ConfigurationError(
                tr("no account is configured: write an [account] group in %@ (see README), set up ~/.msmtprc, or add "
                    + "a mail account in Settings, Online Accounts", paths.configFile))
        case .failure(let mistake)?:
            throw mistake
        case .success(let setup)?:
            return try setup.account.get()
        }
    }

    /// The run's one SMTP connection through `account` (made with its first message): the
    /// message and the quick flush after it go through it.
    func smtp(for account: Account) throws -> any MailConnection {
        if let made = connections[account.name] { return try made.get() }
        let made = Result { try services.transport.connect(server(for: account)) as any MailConnection }
        connections[account.name] = made
        return try made.get()
    }

    /// Where a handoff goes, chosen the first time a path asks: the mail program or webmail
    /// service the chooser's Always named (`rememberedWay`), else `handler=`, else the
    /// desktop's; the failure says why there is nowhere to go.
    public func destination() -> Result<any MailProgram, Failure> {
        if let handoffDestination { return handoffDestination }
        let handler = rememberedWay?.handler ?? routeSettings.handler
        let found = Result { try services.mailPrograms.find(configured: handler, browser: webmailBrowser(for: handler), paths: paths) }
            .mapError { Failure($0, otherwise: .permanent) }
        handoffDestination = found
        return found
    }

    /// Where `request` is handed off: the way the person chose for it in the chooser
    /// (`RouteRequest.handler`), else `destination()`.
    public func destination(for request: RouteRequest) -> Result<any MailProgram, Failure> {
        let kept = request.source == .portal ? rememberedWay(for: request)?.handler : nil
        guard let handler = request.handler ?? kept else { return destination() }
        return Result { try services.mailPrograms.find(configured: handler, browser: webmailBrowser(for: handler), paths: paths) }.mapError { Failure($0, otherwise: .permanent) }
    }
}

extension Session {
    /// Whether a compose sheet can be shown in this run: a display, and the sheet program
    /// beside mailto-route. An input of the plan (`RouteRequest.sheet`).
    public var canShowSheet: Bool {
        environment.hasDisplay && SheetService.sheetProgram != nil
    }
}
