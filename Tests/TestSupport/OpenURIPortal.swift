import Foundation

/// Debian's real xdg-desktop-portal 1.16 with its real gtk backend (whose AppChooser the
/// OpenURI portal needs before it exports OpenURI at all), on a private session bus of
/// their own, in `environment` (the sandbox's: the portal launches the `mailto:` handler that
/// environment's mimeapps.list names, through GIO, as it does on a desktop). A browser given
/// `address` as its session bus opens links through it. Stopped when released.
public final class OpenURIPortal: @unchecked Sendable {
    public let address: String
    private let bus: PrivateSessionBus
    private let backend: ServerProcess
    private let portal: ServerProcess

    public init(environment: [String: String], directory: URL) throws {
        bus = try PrivateSessionBus()
        address = bus.address
        let portals = directory.appendingPathComponent("portals-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: portals, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/share/xdg-desktop-portal/portals/gtk.portal",
                                         toPath: portals.appendingPathComponent("gtk.portal").path)
        var environment = environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["XDG_DESKTOP_PORTAL_DIR"] = portals.path
        // gtk.portal says UseIn=gnome.
        environment["XDG_CURRENT_DESKTOP"] = "GNOME"
        backend = try ServerProcess(["/usr/libexec/xdg-desktop-portal-gtk", "--replace"], environment: environment,
                                    output: portals.appendingPathComponent("gtk.log").path)
        try Self.waitForName("org.freedesktop.impl.portal.desktop.gtk", on: bus.address)
        portal = try ServerProcess([realPortal, "--replace"], environment: environment,
                                   output: portals.appendingPathComponent("portal.log").path)
        try waitUntil("xdg-desktop-portal exports OpenURI") {
            let result = try run("/usr/bin/gdbus", [
                "introspect", "--address", bus.address, "--dest", "org.freedesktop.portal.Desktop",
                "--object-path", "/org/freedesktop/portal/desktop",
            ], environment: ProcessInfo.processInfo.environment, timeout: 10)
            return result.stdout.contains("org.freedesktop.portal.OpenURI")
        }
    }

    /// Waits until `name` has an owner on the bus at `address`.
    static func waitForName(_ name: String, on address: String) throws {
        try waitUntil("\(name) is on the bus") { BusCall.hasOwner(name, on: address) }
    }

    deinit {
        portal.stop()
        backend.stop()
    }
}
