import Foundation
import Testing
import TestSupport

/// `mailto-route check` on the Email portal's backend and on the activation environment,
/// end to end: the built binary in a sandbox, Debian's real xdg-desktop-portal (1.16 reads
/// `XDG_DESKTOP_PORTAL_DIR` instead of /usr/share/xdg-desktop-portal/portals, so it reads
/// the same temporary directory), and a private session bus.
@Suite struct PortalCheckTests {
    private func checkJSON(_ sandbox: Sandbox, _ extra: [String: String], offline: Bool) throws -> [String: Any] {
        let result = try route(["check", "--json"] + (offline ? ["--offline"] : []), in: sandbox, extra)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    private func tableRow(_ sandbox: Sandbox, _ extra: [String: String], _ label: String) throws -> String? {
        let table = try route(["check", "--offline"], in: sandbox, extra)
        for line in table.stdout.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            if line.hasPrefix("  "), trimmed.hasPrefix(label + " ") {
                return String(trimmed.dropFirst(label.count).drop { $0 == " " })
            }
        }
        return nil
    }

    /// The backend the real portal chose for Email, from its own log (`-v`): 1.16 says
    /// "Using X for IFACE in DESKTOP" or "Falling back to X for IFACE".
    private func realPortalChoice(portals: String, desktop: String) throws -> String? {
        let text = try realPortalStartLog(portals: portals, desktop: desktop)
        for line in text.split(separator: "\n") where line.contains(" for org.freedesktop.impl.portal.Email") {
            for prefix in ["Using ", "Falling back to "] {
                if let range = line.range(of: prefix) {
                    return String(line[range.upperBound...].prefix { $0 != " " })
                }
            }
        }
        return nil
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: realPortal), "xdg-desktop-portal is not installed"))
    func checkNamesTheBackendTheRealPortalPicksAndItsStepMakesMailtoRouteWin() throws {
        let sandbox = try Sandbox()
        let portals = sandbox.root.appendingPathComponent("portals")
        let shipped = try String(contentsOf: packageRoot.appendingPathComponent("data/mailtoroute.portal"), encoding: .utf8)
        try sandbox.write(shipped, to: "portals/mailtoroute.portal")
        try sandbox.write("""
            [portal]
            DBusName=org.freedesktop.impl.portal.desktop.gtk
            Interfaces=org.freedesktop.impl.portal.FileChooser;org.freedesktop.impl.portal.Email;
            UseIn=gnome
            """, to: "portals/gtk.portal")
        let extra = ["XDG_DESKTOP_PORTAL_DIR": portals.path, "XDG_CURRENT_DESKTOP": "GNOME"]

        let object = try checkJSON(sandbox, extra, offline: true)
        let email = try #require(object["emailBackend"] as? [String: Any])
        #expect(email["version"] as? String == "1.16.0")
        #expect(email["directory"] as? String == portals.path)
        #expect((email["winner"] as? [String: Any])?["file"] as? String == "gtk.portal")
        #expect(email["mailtoRouteWins"] as? Bool == false)
        #expect(try realPortalChoice(portals: portals.path, desktop: "GNOME") == "gtk.portal")
        #expect(try tableRow(sandbox, extra, "wins")?.hasPrefix("gtk.portal (org.freedesktop.impl.portal.desktop.gtk)") == true)

        // 1.16 has no per-user setting: the step is the package's own file, and no root step
        // (a file copied beside the package's outlives it).
        let steps = email["steps"] as? [String] ?? []
        #expect(steps.first?.hasPrefix("install data/00-mailtoroute.portal to \(portals.path)/ (the package does") == true, "\(steps)")
        #expect(steps.allSatisfy { !$0.contains("as root") }, "\(steps)")

        // On a desktop no UseIn names, the real portal falls back to the first file by name.
        let xfce = try #require(try checkJSON(sandbox, ["XDG_DESKTOP_PORTAL_DIR": portals.path, "XDG_CURRENT_DESKTOP": "XFCE"],
                                               offline: true)["emailBackend"] as? [String: Any])
        #expect((xfce["winner"] as? [String: Any])?["file"] as? String == "gtk.portal")
        #expect(try realPortalChoice(portals: portals.path, desktop: "XFCE") == "gtk.portal")

        // The step taken, as the package takes it: the real portal and check agree that
        // mailto-route is the Email backend, on GNOME and on XFCE.
        try sandbox.write(try String(contentsOf: packageRoot.appendingPathComponent("data/00-mailtoroute.portal"), encoding: .utf8),
                          to: "portals/00-mailtoroute.portal")
        for desktop in ["GNOME", "XFCE"] {
            let after = try #require(try checkJSON(sandbox, ["XDG_DESKTOP_PORTAL_DIR": portals.path, "XDG_CURRENT_DESKTOP": desktop],
                                                    offline: true)["emailBackend"] as? [String: Any])
            #expect((after["winner"] as? [String: Any])?["file"] as? String == "00-mailtoroute.portal", "\(desktop)")
            #expect(after["mailtoRouteWins"] as? Bool == true, "\(desktop)")
            #expect(try realPortalChoice(portals: portals.path, desktop: desktop) == "00-mailtoroute.portal", "\(desktop)")
        }
    }

    @Test func systemdsActivationEnvironmentIsComparedWithThisRunsWithTheFix() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let ready = sandbox.root.appendingPathComponent("manager-ready")
        let manager = try ServerProcess(
            ["/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/systemd-manager.py").path,
             "--ready", ready.path, "--env", "PATH=/usr/local/bin:/usr/bin", "--env", "XDG_CURRENT_DESKTOP=KDE",
             "--env", "DBUS_SESSION_BUS_ADDRESS=\(bus.address)"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { manager.stop() }
        try manager.waitForReady(ready.path, name: "systemd-manager.py")
        let extra = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin", "XDG_CURRENT_DESKTOP": "KDE",
                     "DISPLAY": ":7", "SSH_AUTH_SOCK": sandbox.runtimeDir.path + "/ssh-agent"]

        // --offline asks the bus nothing.
        let offline = try checkJSON(sandbox, extra, offline: true)
        #expect(member(offline, "activation", "bus", "source") as? String == "not asked")
        #expect(member(offline, "activation", "thisRun", "DISPLAY") as? String == ":7")
        #expect(member(offline, "activation", "fix") is NSNull)

        let object = try checkJSON(sandbox, extra, offline: false)
        #expect(member(object, "activation", "bus", "source") as? String == "systemd")
        #expect(member(object, "activation", "bus", "environment", "PATH") as? String == "/usr/local/bin:/usr/bin")
        let missing = member(object, "activation", "missing") as? [String] ?? []
        let differing = member(object, "activation", "differing") as? [String] ?? []
        #expect(missing.contains("DISPLAY") && missing.contains("SSH_AUTH_SOCK"), "\(missing)")
        #expect(differing == ["PATH"], "\(differing)")
        #expect(!missing.contains("XDG_CURRENT_DESKTOP") && !missing.contains("DBUS_SESSION_BUS_ADDRESS"))
        let fix = "dbus-update-activation-environment --systemd " + (missing + differing).joined(separator: " ")
        #expect(member(object, "activation", "fix") as? String == fix)
        let problems = object["problems"] as? [[String: Any]] ?? []
        #expect(problems.contains { ($0["fix"] as? String) == fix && ($0["problem"] as? String)?.contains("DISPLAY") == true })
        // The portal is started by D-Bus activation: the desktop it sees is systemd's.
        #expect((member(object, "emailBackend", "desktopsFrom") as? String)?.hasPrefix("systemd --user") == true
                    || member(object, "emailBackend", "installed") as? Bool == false)
    }

    @Test func withoutSystemdTheActivationEnvironmentIsDbusDaemonsOwn() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let object = try checkJSON(sandbox, ["DBUS_SESSION_BUS_ADDRESS": bus.address, "DISPLAY": ":7"], offline: false)
        #expect(member(object, "activation", "bus", "source") as? String == "dbus-daemon")
        #expect(member(object, "activation", "fix") is NSNull)
        let table = try route(["check"], in: sandbox, ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(table.stdout.contains("dbus-daemon's own environment"), "\(table)")
    }

    private func member(_ object: [String: Any], _ path: String...) -> Any? {
        var current: Any? = object
        for key in path { current = (current as? [String: Any])?[key] }
        return current
    }
}
