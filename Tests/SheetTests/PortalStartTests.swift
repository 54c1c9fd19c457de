import Foundation
import Testing
import TestSupport

/// Debian's real xdg-desktop-portal (1.16), D-Bus activated on a bus where mailto-route's
/// backend is the Email portal's, on a display: the portal starts the desktop service as it
/// starts (its proxy of each backend), and the service's own start-up (GTK's, without a
/// session manager on the bus) asks for the portal in turn. Before the service answered the
/// portal off its main thread, each waited for the other until D-Bus's 25 s activation
/// timeout, at every start of the portal.
@Suite struct PortalStartTests {
    @Test func thePortalStartsWithMailtoRoutesBackendWithoutWaitingForIt() throws {
        let desktop = try TestDesktop.shared.get()
        let sandbox = try Sandbox()
        var environment = sandbox.environment
        // Writes the service's D-Bus files (its own name and the portal backend's).
        let register = try run(mailtoRouteBinary, ["register"], environment: environment)
        try #require(register.status == 0, "\(register)")
        let services = sandbox.dataHome.appendingPathComponent("dbus-1/services")
        // The portal activatable as on a desktop, reading its backends from the sandbox:
        // mailto-route's file as installed, the only one there that offers Email.
        _ = try sandbox.write("[D-BUS Service]\nName=org.freedesktop.portal.Desktop\nExec=\(realPortal)\n",
                              to: "home/.local/share/dbus-1/services/org.freedesktop.portal.Desktop.service")
        let portals = try sandbox.write(
            try String(contentsOf: packageRoot.appendingPathComponent("data/mailtoroute.portal"), encoding: .utf8),
            to: "portals/mailtoroute.portal").deletingLastPathComponent()
        environment["XDG_DESKTOP_PORTAL_DIR"] = portals.path
        environment["XDG_CURRENT_DESKTOP"] = "GNOME"
        environment["DISPLAY"] = desktop.display
        // The sandbox's data directories hold no GSettings schemas, which the portal's
        // network monitor needs; settings stay in memory.
        environment["GSETTINGS_SCHEMA_DIR"] = "/usr/share/glib-2.0/schemas"
        environment["GSETTINGS_BACKEND"] = "memory"
        let bus = try PrivateSessionBus(serviceDirectory: services, environment: environment, unset: ["WAYLAND_DISPLAY"])
        defer { bus.stop() }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address

        // An application's first portal call: it activates the portal, which activates the
        // service. Answered once both have started; 20 s is a bound on a wait that ended at
        // the 25 s timeout before, not a measure of speed.
        let version = try run("/usr/bin/gdbus", [
            "call", "--address", bus.address, "--timeout", "20", "--dest", "org.freedesktop.portal.Desktop",
            "--object-path", "/org/freedesktop/portal/desktop", "--method", "org.freedesktop.DBus.Properties.Get",
            "org.freedesktop.portal.Email", "version",
        ], environment: environment, timeout: 40)
        #expect(version.status == 0 && version.stdout.contains("uint32"), "\(version)")
        // The portal took mailto-route's backend for Email: the service was started for it.
        #expect(bus.hasOwner("org.freedesktop.impl.portal.desktop.mailtoroute"))
    }
}
