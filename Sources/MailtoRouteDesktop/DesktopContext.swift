import ComposeSheet
import MailtoRoute
import MainLoop

/// What the desktop program runs with, as the command line's `Context`: the paths, the
/// environment and the services of each request's Session (made anew for each request: the
/// configuration may change between two clicks), and the clock its timers count on
/// (`services.clock`). `current()` is this process's; the in-process tests give their own
/// paths and fakes.
public struct DesktopContext {
    public var paths: Paths
    public var environment: Session.Environment
    public var services: Services

    public init(paths: Paths, environment: Session.Environment, services: Services) {
        self.paths = paths
        self.environment = environment
        self.services = services
    }

    /// This process's: its paths and environment, the real services.
    public static func current() -> DesktopContext {
        DesktopContext(paths: .current(), environment: .current(), services: .system)
    }

    /// A session for one request, with the configuration read now.
    public func session() -> Session {
        Session(paths: paths, configuration: .load(paths), environment: environment, services: services)
    }
}

/// What the desktop service shows and how it waits, on one main loop: the GTK application
/// (`SheetApplication`) in the program, a recording fake with a clock of its own in the
/// tests. Everything here is called on the main loop, and calls back on it.
@GLibMainActor
public protocol DesktopPresenter: AnyObject {
    /// Whether windows can be shown here (GTK started on a display).
    var showsSheets: Bool { get }
    /// Opens a compose sheet; only where `showsSheets`.
    func open(_ content: SheetContent, host: any SheetHost, recovery: RecoveryStore?, activationToken: String?) -> any SheetWindow
    /// Opens the chooser; `answered` once with what the person chose. Only where `showsSheets`.
    func openChooser(_ content: ChooserContent, activationToken: String?,
                     answered: @escaping (ChooserAnswer) -> Void) -> any SheetWindow
    /// A notification as this application; the same `id` replaces an earlier one.
    func notify(id: String, title: String, body: String, urgent: Bool, buttons: [NotificationButton])
    func withdrawNotification(id: String)
    /// Opens `path` with the desktop's program for its type.
    func showFile(_ path: String) throws(ServiceError)
    /// Puts `text` on the desktop's clipboard and holds it until another program takes it
    /// (Copy Address); throws where there is no display.
    func copy(_ text: String) throws(ServiceError)
    /// Keeps the program running while work it started goes on.
    func hold()
    func release()
    /// Runs `work` off the main loop and `then` with its result back on it, holding meanwhile.
    func inBackground<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then: @escaping @GLibMainActor (Result) -> Void)
    /// Runs `work` on the main loop once, `seconds` from now.
    func after(seconds: UInt32, _ work: @escaping @GLibMainActor () -> Void)
}

extension SheetApplication: DesktopPresenter {
    public func open(_ content: SheetContent, host: any SheetHost, recovery: RecoveryStore?,
                     activationToken: String?) -> any SheetWindow {
        open(content, host: host, recovery: recovery, activationToken: activationToken) as SheetHandle
    }

    public func openChooser(_ content: ChooserContent, activationToken: String?,
                            answered: @escaping (ChooserAnswer) -> Void) -> any SheetWindow {
        openChooser(content, activationToken: activationToken, answered: answered) as SheetHandle
    }
}
