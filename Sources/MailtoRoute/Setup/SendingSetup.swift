import DesktopIntegration
public import MailtoCore
public import MIMEMessage
public import SMTPTransport

/// Sets up a sending account from an address and a password, as `account add` and the
/// sheet's "Set up sending" do (docs/accounts.md "Setting up an account"): finds the
/// submission server (`MailServerDiscovery`), tests it live with the password (the probe
/// `check` uses), and only then keeps it: the password in the keyring, under msmtp's
/// attributes (where an account with a `user=` and no other password source reads it),
/// never in a file; the account as an `[account NAME]` group of the user's config file,
/// written with its comments and other groups kept.
public enum SendingSetup {
    /// What a person gives.
    public struct Request: Sendable {
        public var from: Mailbox
        public var password: String
        /// The account's name (`[account NAME]`); the address when not given.
        public var accountName: String?
        /// The server, when the person names it (skips discovery).
        public var manual: ManualServer?

        public init(from: Mailbox, password: String, accountName: String? = nil, manual: ManualServer? = nil) {
            self.from = from
            self.password = password
            self.accountName = accountName
            self.manual = manual
        }
    }

    /// A server a person names: the port and security follow each other when only one is
    /// given (465 is implicit TLS; otherwise STARTTLS on 587), the login is the address
    /// when not given.
    public struct ManualServer: Sendable, Equatable {
        public var host: String
        public var port: Int?
        public var security: SMTPServer.Security?
        public var user: String?

        public init(host: String, port: Int? = nil, security: SMTPServer.Security? = nil, user: String? = nil) {
            self.host = host
            self.port = port
            self.security = security
            self.user = user
        }
    }

    /// What was kept.
    public struct KeptAccount: Sendable {
        public var accountName: String
        /// The server and login, without the password.
        public var server: SMTPServer
        public var source: ServerCandidate.Source
        public var origin: String
        /// The config file the account was written to.
        public var configFile: String
        /// What each source of discovery found.
        public var steps: [String]
    }

    /// Where it reaches, and what it may do there.
    public struct Context {
        public var paths: Paths
        public var network: any MailServerNetwork
        /// The keyring may show its unlock prompt (there is a display).
        public var mayPrompt: Bool
        /// Hears each step as it starts ("Testing smtp.example.org:465..."), for a person watching.
        public var progress: (String) -> Void

        public init(paths: Paths, network: any MailServerNetwork, mayPrompt: Bool, progress: @escaping (String) -> Void = { _ in }) {
            self.paths = paths
            self.network = network
            self.mayPrompt = mayPrompt
            self.progress = progress
        }
    }

    /// Finds, tests and keeps the account; throws `SendingSetupError` with nothing kept
    /// (except when the keyring took the password and the config file then could not be
    /// written: the error says so).
    public static func run(_ request: Request, context: Context) throws(SendingSetupError) -> KeptAccount {
        let address = request.from.address
        guard !request.password.isEmpty else { throw SendingSetupError(.input, .input, tr("the password is empty")) }
        let name = request.accountName ?? accountName(for: address)
        guard Configuration.isValidName(name) else {
            throw SendingSetupError(.input, .input, tr("'%@' cannot be an account's name: use letters, digits, '.', '-', '_' and '@'", name.visible))
        }
        let existing = Configuration.load(context.paths).accounts
        if existing.contains(where: { $0.name == name }) {
            throw SendingSetupError(.configuration, .exists, tr("an account named '%@' is set up already (choose another name)", name))
        }
        var discovery = MailServerDiscovery(address: address, network: context.network, caFile: context.paths.defaultCAFile)
        let provider = MailProvider.of(domain: discovery.domain)
        if request.manual == nil, let provider, provider.login == .onlineAccountsOnly {
            throw SendingSetupError(.configuration, .needsOnlineAccounts, tr("%@ takes no password over SMTP", provider.name), note: provider.note)
        }
        var tried: [String] = []
        var failures: [String] = []
        // What a server given by hand that answered said was wrong.
        var reached: String?
        let sources: [ServerCandidate.Source] = request.manual == nil ? [.srv, .autoconfig, .provider, .guess] : [.manual]
        for source in sources {
            let candidates = source == .manual ? request.manual.map { [manualCandidate($0, discovery)] } ?? []
                                               : discovery.candidates(from: source)
            for candidate in candidates {
                let key = "\(candidate.server.security.rawValue)://\(candidate.server.address)"
                if tried.contains(key) { continue }
                tried.append(key)
                context.progress(tr("Testing %@ (%@)...", candidate.server.address, candidate.origin))
                var server = candidate.server
                server.password = request.password
                let probe = context.network.probe(server)
                if probe.succeeded {
                    return try keep(candidate, imap: request.manual == nil ? discovery.imapServer() : nil, name: name,
                                    request: request, steps: discovery.steps, context: context)
                }
                let reason = probe.error?.message ?? tr("no answer")
                if probe.authenticated == false || probe.error?.refusedLogin == true {
                    // The server is the right one and said no: the password (or the login) is
                    // what is wrong, and no other server should be given it.
                    throw SendingSetupError(.configuration, .loginRefused, reason, note: provider?.note, steps: discovery.steps)
                }
                failures.append(tr("%@ (%@): %@", candidate.server.address, candidate.origin, reason))
                if probe.connected, request.manual != nil { reached = tr("The mail server answered, but %@", reason) }
            }
        }
        // Say what happened: a server that answered and would not do what sending needs
        // (no STARTTLS, for one) was reached.
        throw SendingSetupError(.configuration, .notFound,
                                request.manual == nil ? tr("Could not find your mail server for %@", discovery.domain)
                                                      : reached ?? tr("Could not reach the mail server"),
                                note: provider?.note, steps: discovery.steps + failures)
    }

    /// The name of the account an address sets up: the address, with what a name cannot
    /// hold (`+`, for one) made `_`.
    public static func accountName(for address: String) -> String {
        String(address.map { character in
            Configuration.isValidName(String(character)) ? character : "_"
        })
    }

    private static func manualCandidate(_ manual: ManualServer, _ discovery: MailServerDiscovery) -> ServerCandidate {
        let security = manual.security ?? (manual.port == 465 ? .tls : .starttls)
        let port = manual.port ?? (security == .tls ? 465 : 587)
        return discovery.candidate(manual.host, port, security, user: manual.user, source: .manual, origin: tr("given"))
    }

    /// The password to the keyring, then the account to the config file, with its IMAP
    /// server when discovery found one.
    private static func keep(
        _ candidate: ServerCandidate, imap: SMTPServer?, name: String, request: Request, steps: [String], context: Context
    ) throws(SendingSetupError) -> KeptAccount {
        let server = candidate.server
        let user = server.user ?? request.from.address
        // msmtp's attributes: what `Account.serverWithPassword` looks up for an account with
        // a user and no password key, and what msmtp and `secret-tool lookup` find too.
        let attributes = ["host": server.host, "service": "smtp", "user": user]
        do {
            try context.network.storePassword(request.password, attributes: attributes,
                                              label: tr("SMTP password for %@ at %@", user, server.host), mayPrompt: context.mayPrompt)
        } catch {
            throw SendingSetupError(.configuration, .notSaved,
                                    tr("the keyring did not take the password, so nothing was saved: %@", "\(error)"), steps: steps)
        }
        let path = context.paths.configFile
        do {
            try ConfigFileAccount.add(name: name, from: request.from, server: server, imap: imap, to: path)
        } catch {
            throw SendingSetupError(.configuration, .notSaved,
                                    tr("the password is in the keyring, but %@ could not be written: %@", path, error.message), steps: steps)
        }
        return KeptAccount(accountName: name, server: server, source: candidate.source, origin: candidate.origin,
                       configFile: path, steps: steps)
    }
}

/// Why no account was set up, and what was found on the way.
public struct SendingSetupError: ClassifiedError, Sendable {
    public enum Reason: String, Sendable {
        /// The address, password or name given cannot be used.
        case input
        /// An account of that name exists.
        case exists
        /// No server that was found answered: the manual form is next.
        case notFound
        /// The server answered and refused the login.
        case loginRefused
        /// The provider takes no password over SMTP: GNOME Online Accounts is the way.
        case needsOnlineAccounts
        /// The keyring or the config file did not take it.
        case notSaved
    }

    public var kind: ErrorKind
    public var reason: Reason
    public var message: String
    /// The provider's advice (an app password, a setting to turn on).
    public var note: String?
    /// What each source of discovery found, and each server that did not answer.
    public var steps: [String]

    public init(_ kind: ErrorKind, _ reason: Reason, _ message: String, note: String? = nil, steps: [String] = []) {
        self.kind = kind
        self.reason = reason
        self.message = message
        self.note = note
        self.steps = steps
    }

    public var description: String {
        message + (note.map { " (\($0))" } ?? "")
    }
}
