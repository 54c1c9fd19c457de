import MailtoCore

/// The desktop service's names on the session bus and its interface, defined once: the
/// service exports what its description file says (data/io.github.mailto_route.MailtoRoute1.xml,
/// `interfaceFile`), and the command line calls it (`SheetService`).
///
/// `io.github.mailto_route.MailtoRoute1` asks for a route, not for a command line:
///
///     Compose(s url, a{sv} options) → (s request)
///     signal Finished(s request, i status, s report, s message)
///
/// `url` is the link (`""` for an empty sheet); the options are `ServiceProtocol.Request`'s
/// (`source`, `local`, `trust`, `requested-by`, `notify`, `activation-token`,
/// `parent-window`). `Finished`
/// comes once per request, to its caller only: the exit status (docs/design.md's), the
/// `RouteReport` as data (its JSON, as `--json` prints it; `""` when nothing was routed)
/// and, when nothing was, why (a URL that does not read, no display).
public enum ServiceProtocol {
    public static let busName = "io.github.mailto_route.MailtoRoute"
    public static let objectPath = "/io/github/mailto_route/MailtoRoute"
    public static let interface = "io.github.mailto_route.MailtoRoute1"
    public static let portalBusName = "org.freedesktop.impl.portal.desktop.mailtoroute"
    public static let portalObjectPath = "/org/freedesktop/portal/desktop"
    public static let portalInterface = "org.freedesktop.impl.portal.Email"
    public static let requestInterface = "org.freedesktop.impl.portal.Request"

    /// The exit status with which the service says it has no display to show a sheet on
    /// (EX_UNAVAILABLE): the caller shows the sheet itself.
    public static let noDisplay: Int32 = 69
    /// The D-Bus error `Copy` answers with when it could not (no display), its message the
    /// reason, for a person.
    public static let copyError = "io.github.mailto_route.MailtoRoute1.Error.CannotCopy"

    /// What the caller asks for: a sheet for a link (`open`) or for writing (`compose`).
    public struct Request: Sendable, Equatable {
        public enum Source: String, Sendable {
            case link, compose
        }

        public var url: String?
        public var source: Source
        /// Every file the URL names is the caller's own (`open --local`).
        public var local = false
        /// The files a local program handed over (xdg-email's `--attach`), as full paths.
        public var trusted: [String] = []
        /// The program that asked for the other files ("Chromium").
        public var requestedBy: String?
        /// How the link arrived where the caller took it (`Arrival.Kind`'s words: `gio
        /// launch`, `portal OpenURI`, `xdg-email`, `command line`), for the report and the log.
        public var arrival: String?
        /// Nobody is at the caller's terminal: the outcome is told in a notification.
        public var notify = false
        /// The click's activation token (Wayland's, or X11's startup notification id).
        public var activationToken: String?
        /// The window of the application that asked (`x11:XID`, `wayland:HANDLE`: the
        /// portal's `PARENT_WINDOW_ID`), which the request's windows are kept above.
        public var parentWindow: String?
        /// What the caller's plan was, made once where the click arrived (the plan `check`
        /// shows): the sheet, or the chooser with the ways it offers. The service carries
        /// it out rather than deciding again in its own environment (D-Bus activation's,
        /// whose data directories and mail programs may differ). `nil`: the caller did not
        /// say, and the service plans.
        public var plan: Plan?

        public init(url: String?, source: Source) {
            self.url = url
            self.source = source
        }

        public enum Plan: Sendable, Equatable {
            case sheet
            case choose([OfferedWay])
        }
    }

    /// One way the chooser offers, as `always=` names it (`id`, "" for setting up an account),
    /// with its name and where it comes from, as the person reads them, and what the chooser
    /// preselects by: a program in a terminal, the desktop's default.
    public struct OfferedWay: Sendable, Equatable {
        public var id: String
        public var name: String
        public var origin: String
        public var inTerminal: Bool
        public var isSystemDefault: Bool

        public init(id: String, name: String, origin: String, inTerminal: Bool = false, isSystemDefault: Bool = false) {
            self.id = id
            self.name = name
            self.origin = origin
            self.inTerminal = inTerminal
            self.isSystemDefault = isSystemDefault
        }
    }

    /// What `Finished` says (`Outcome` is the outcome log's line).
    public struct Answer: Sendable, Equatable {
        public var status: Int32
        /// The RouteReport's JSON; `nil` when nothing was routed.
        public var report: String?
        /// Why nothing was routed.
        public var message: String

        public init(status: Int32, report: String?, message: String) {
            self.status = status
            self.report = report
            self.message = message
        }
    }

    /// The file that describes the service's own interface (data/, installed in
    /// `share/dbus-1/interfaces/`): the one description, which the service reads when it
    /// starts and exports, and which `gdbus introspect` of the running service shows.
    public static let interfaceFile = "\(interface).xml"

    /// The interface description beside `executable` (by default the running program,
    /// resolved): `../share/dbus-1/interfaces/` once installed, the tree's `data/` for a
    /// build run from it (`.build/TRIPLE/CONFIGURATION/`). Throws when neither is there.
    public static func interfaceDescription(executable: String? = nil) throws(DesktopError) -> String {
        let directory = Files.directory(of: executable ?? AppInfo.resolved("/proc/self/exe"))
        let candidates = [directory + "/../share/dbus-1/interfaces/" + interfaceFile, directory + "/../../../data/" + interfaceFile]
        for path in candidates {
            if let bytes = try Files.read(path) { return String(decoding: bytes, as: UTF8.self) }
        }
        throw DesktopError(.configuration, tr("the desktop service's interface description is not installed (%@)", candidates[0]))
    }

    /// The Email portal backend and its request objects: xdg-desktop-portal's interfaces
    /// (its `org.freedesktop.impl.portal.Email.xml` and `…Request.xml`), the members the
    /// service implements.
    public static let portalIntrospection = """
        <node>
          <interface name="\(portalInterface)">
            <method name="ComposeEmail">
              <arg type="o" name="handle" direction="in"/>
              <arg type="s" name="app_id" direction="in"/>
              <arg type="s" name="parent_window" direction="in"/>
              <arg type="a{sv}" name="options" direction="in"/>
              <arg type="u" name="response" direction="out"/>
              <arg type="a{sv}" name="results" direction="out"/>
            </method>
          </interface>
          <interface name="\(requestInterface)">
            <method name="Close"/>
          </interface>
        </node>
        """
}
