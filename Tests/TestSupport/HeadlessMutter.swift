import Foundation

/// Debian's mutter 43 as a headless Wayland compositor (`--headless --wayland --no-x11
/// --virtual-monitor`), the way GNOME's own tests run it: a desktop with a real window
/// manager's focus rules, on a private session bus of a sandbox's, with the AT-SPI bus on the
/// same bus so that the sheet driver sees its windows. Input comes through mutter's
/// RemoteDesktop D-Bus API (Servers/link-clicker.py). Everything stops when the value is
/// released.
public final class HeadlessMutter: @unchecked Sendable {
    public static let program = "/usr/bin/mutter"

    /// mutter's `focus-new-windows` (org.gnome.desktop.wm.preferences).
    public enum FocusNewWindows: String, Sendable, CustomStringConvertible {
        /// mutter's default: a new window that brings no startup information takes the focus.
        case smart
        /// A new window takes the focus only with a user time newer than the focused
        /// window's (an activation token from a click); mutter 43 applies it while a terminal
        /// has the focus.
        case strict

        public var description: String { rawValue }
    }

    public let bus: PrivateSessionBus
    /// The environment of the bus (hence of what it activates), of mutter and of the
    /// programs a test runs on this desktop.
    public let environment: [String: String]
    private var servers: [ServerProcess] = []

    /// `environment`: a sandbox's, its HOME and XDG_* directories the session's; `services`:
    /// the bus's service directory (what `register` installed).
    public init(focusNewWindows: FocusNewWindows, environment base: [String: String], services: URL, log: URL) throws {
        var environment = base
        // Settings in a key file in the sandbox (GSETTINGS_BACKEND=keyfile reads
        // $XDG_CONFIG_HOME/glib-2.0/settings/keyfile), for mutter and every program here.
        let configHome = URL(fileURLWithPath: base["XDG_CONFIG_HOME"] ?? "/nonexistent")
        let keyfile = configHome.appendingPathComponent("glib-2.0/settings/keyfile")
        try FileManager.default.createDirectory(at: keyfile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[org/gnome/desktop/wm/preferences]\nfocus-new-windows='\(focusNewWindows)'\n"
            .write(to: keyfile, atomically: true, encoding: .utf8)
        environment["GSETTINGS_BACKEND"] = "keyfile"
        environment["GSETTINGS_SCHEMA_DIR"] = "/usr/share/glib-2.0/schemas"
        let display = "wayland-mailto-route"
        environment["WAYLAND_DISPLAY"] = display
        environment["GDK_BACKEND"] = "wayland"
        environment["DISPLAY"] = nil
        // Cairo, and no GL context at all, not GL on Mesa's software renderer
        // (desktop-session.py says why).
        environment["GSK_RENDERER"] = "cairo"
        environment["GDK_DEBUG"] = "gl-disable"
        environment["NO_AT_BRIDGE"] = nil
        environment["GTK_A11Y"] = nil
        bus = try PrivateSessionBus(serviceDirectory: services, environment: environment, unset: ["DISPLAY"])
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        self.environment = environment
        do {
            // The accessibility bus and its registry, as a session starts them.
            try start(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"], owning: "org.a11y.Bus", log: log)
            // MUTTER_DEBUG=startup: mutter logs its busy cursor ("STARTUP: Setting busy cursor",
            // "Setting default cursor") and each startup sequence that times out, for the
            // tests of what a click leaves behind.
            var mutter = environment
            mutter["MUTTER_DEBUG"] = "startup"
            try start([Self.program, "--headless", "--wayland", "--no-x11", "--wayland-display", display,
                       "--virtual-monitor", "1280x800"], owning: "org.gnome.Mutter.RemoteDesktop", log: log, environment: mutter)
        } catch {
            stop()
            throw error
        }
    }

    /// Starts `argv` on this session (in its environment, or `environment`) and waits until
    /// it owns `name` on the bus.
    @discardableResult
    public func start(_ argv: [String], owning name: String, log: URL, environment: [String: String]? = nil) throws -> ServerProcess {
        // A session of its own (setsid), so that what it starts (the accessibility bus's
        // dbus-daemon and registry) goes with it.
        let server = try ServerProcess(["/usr/bin/setsid"] + argv, environment: environment ?? self.environment,
                                       unset: ["DISPLAY"], output: log.path)
        servers.append(server)
        try waitUntil("\(argv[0]) owns \(name) (log: \(log.path))") {
            guard server.isRunning else { throw TestSupportError("\(argv[0]) exited (log: \(log.path))") }
            return bus.hasOwner(name)
        }
        return server
    }

    /// Runs Servers/sheet-driver.py with `steps` on this desktop: the JSON line each step
    /// printed, or the driver's failure as the error.
    public func drive(_ steps: [String], timeout: Double = 30) throws -> [[String: Any]] {
        let result = try runSheetDriver(steps, timeout: timeout, environment: environment)
        guard result.status == 0 else { throw TestSupportError("sheet-driver.py: \(result)") }
        return sheetDriverLines(result)
    }

    private func stop() {
        for server in servers.reversed() {
            kill(-server.pid, SIGKILL)
            server.stop()
        }
    }

    deinit {
        stop()
    }
}
