import MailtoRoute

/// What a command runs with: where it prints, and the run's facts (docs/style.md 12: read
/// once, passed down). The session is made when a command asks for it, so that the
/// configuration is read only by the commands that need it (`log` reads no config).
/// `current()` is this process's; the in-process tests give their own paths and fakes.
public struct Context {
    public var output: Output
    public var paths: Paths
    public var environment: Session.Environment
    public var services: Services

    public init(output: Output, paths: Paths, environment: Session.Environment, services: Services) {
        self.output = output
        self.paths = paths
        self.environment = environment
        self.services = services
    }

    /// This process's: standard output and error, its paths and environment, the real
    /// services.
    public static func current() -> Context {
        Context(output: .standard, paths: .current(), environment: .current(), services: .system)
    }

    /// A session for this run, with the configuration read now and the command's `options`.
    public func session(_ options: Session.Options = Session.Options()) -> Session {
        Session(paths: paths, configuration: .load(paths), environment: environment, services: services, options: options)
    }
}
