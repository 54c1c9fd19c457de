#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import SMTPTransport

/// One run of mailto-route (a click, a command, one request to the desktop service): what
/// it reads of the world, read once, and what it obtains, obtained at most once. Everything
/// below takes what it needs from here; nothing re-reads the environment or the config
/// file (docs/style.md 12: load once, pass it down).
///
/// - the paths, by GLib's rule (`Paths`);
/// - the configuration: the config file or msmtp's, parsed once (`Configuration`);
/// - the credentials: the password, obtained at most once, and only when a send will happen;
/// - the SMTP session: one connection, shared by the message and the quick flush after it;
/// - the handoff destination, looked up once, and only when a path needs it;
/// - what it reaches outside the process through (`Services`: the real ones, or fakes).
///
/// Not for sharing between threads: a run does one thing at a time.
public final class Session {
    public let paths: Paths
    public let configuration: Configuration
    public let environment: Environment
    public let services: Services
    /// How long a password command may take (`check` gives it less: a click would wait).
    public var passwordCommandTimeout = PasswordCommand.timeoutSeconds
    /// Whether a locked keyring may show its unlock prompt: with a display, as GNOME
    /// applications do (`check` never shows one).
    public lazy var passwordMayPrompt = environment.hasDisplay

    private var credentials: Result<SMTPServer, ConfigurationError>?
    /// Whether this run has asked for the password (`server()`).
    var triedPassword: Bool { credentials != nil }
    private var connection: Result<any MailConnection, SMTPError>?
    private var handoffDestination: Result<any MailProgram, Failure>?

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

    public init(paths: Paths, configuration: Configuration, environment: Environment = Environment(),
                services: Services = .system) {
        self.paths = paths
        self.configuration = configuration
        self.environment = environment
        self.services = services
    }

    /// This process's run: its paths, its configuration read now, its environment.
    public static func current() -> Session {
        let paths = Paths.current()
        return Session(paths: paths, configuration: .load(paths), environment: .current())
    }

    public var storage: StorageLocations { paths.storage }
    /// The `[route]` group as read (`route(_:)` is the routing itself).
    public var routeSettings: RouteSettings { configuration.route }
    /// The account when it reads; see `configuration.account` for its mistake.
    public var account: Account? { try? configuration.account?.get() }

    /// The account's server with its password, obtained the first time it is asked for
    /// (a password command runs, the keyring is asked) and kept for the rest of the run.
    public func server() throws(ConfigurationError) -> SMTPServer {
        let obtained = credentials ?? obtainPassword()
        credentials = obtained
        return try obtained.get()
    }

    private func obtainPassword() -> Result<SMTPServer, ConfigurationError> {
        switch configuration.account {
        case nil:
            return .failure(ConfigurationError(
                "no account is configured: write an [account] group in \(paths.configFile) (see README), or set up ~/.msmtprc"))
        case .failure(let mistake)?:
            return .failure(mistake)
        case .success(let account)?:
            return Result { () throws(ConfigurationError) in try account.serverWithPassword(commandTimeout: passwordCommandTimeout, mayPrompt: passwordMayPrompt) }
        }
    }

    /// The run's one SMTP connection (made with its first message): the message and the
    /// quick flush after it go through it.
    func smtp() throws -> any MailConnection {
        let made = try connection ?? .success(services.transport.connect(server()))
        connection = made
        return try made.get()
    }

    /// Where a handoff goes, chosen the first time a path asks; the failure says why
    /// there is nowhere to go.
    public func destination() -> Result<any MailProgram, Failure> {
        if let handoffDestination { return handoffDestination }
        let found = Result { try services.mailPrograms.find(configured: routeSettings.handler) }
            .mapError { Failure($0, otherwise: .permanent) }
        handoffDestination = found
        return found
    }
}

extension Session {
    /// Whether a compose sheet can be shown in this run: a display, and the sheet program
    /// beside mailto-route. An input of the plan (`RouteRequest.sheet`).
    public var canShowSheet: Bool {
        environment.hasDisplay && SheetService.sheetProgram != nil
    }
}
