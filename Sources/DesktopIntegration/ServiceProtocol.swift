/// The desktop service's names on the session bus and its interface, defined once: the
/// service exports what is here (mailto-route-desktop), and the command line calls it
/// (`SheetService`).
///
/// `io.github.mailto_route.MailtoRoute1` asks for a route, not for a command line:
///
///     Compose(s url, a{sv} options) → (s request)
///     signal Finished(s request, i status, s report, s message)
///
/// `url` is the link (`""` for an empty sheet); the options are `ServiceProtocol.Request`'s
/// (`source`, `local`, `trust`, `requested-by`, `notify`, `activation-token`). `Finished`
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
        /// Nobody is at the caller's terminal: the outcome is told in a notification.
        public var notify = false
        /// The click's activation token (Wayland's, or X11's startup notification id).
        public var activationToken: String?

        public init(url: String?, source: Source) {
            self.url = url
            self.source = source
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

    /// The service's objects: its own interface, the Email portal backend, and the
    /// portal's request objects.
    public static let introspection = """
        <node>
          <interface name="\(interface)">
            <method name="Compose">
              <arg type="s" name="url" direction="in"/>
              <arg type="a{sv}" name="options" direction="in"/>
              <arg type="s" name="request" direction="out"/>
            </method>
            <signal name="Finished">
              <arg type="s" name="request"/>
              <arg type="i" name="status"/>
              <arg type="s" name="report"/>
              <arg type="s" name="message"/>
            </signal>
          </interface>
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
