import Foundation

/// Debian's real xdg-desktop-portal (1.16 reads `XDG_DESKTOP_PORTAL_DIR` instead of
/// /usr/share/xdg-desktop-portal/portals).
public let realPortal = "/usr/libexec/xdg-desktop-portal"

/// What the real portal logs (`--verbose`) as it starts on a private bus of its own with the
/// backend descriptions in `portals`, on `desktop` (`XDG_CURRENT_DESKTOP`): its whole log once
/// it has taken its bus name, by when it has chosen a backend for every portal, or once it
/// has exited.
public func realPortalStartLog(portals: String, desktop: String) throws -> String {
    let bus = try PrivateSessionBus()
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("xdp-\(UUID().uuidString).log").path
    defer { try? FileManager.default.removeItem(atPath: log) }
    let portal = try ServerProcess([realPortal, "--verbose", "--replace"], environment: [
        "DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_DESKTOP_PORTAL_DIR": portals, "XDG_CURRENT_DESKTOP": desktop,
    ], output: log)
    defer { portal.stop() }
    var text = ""
    try waitUntil("xdg-desktop-portal took its name or exited: \(text)") {
        // Whether it still runs, then its log: a portal that has exited has written it all.
        let running = portal.isRunning
        text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.contains("org.freedesktop.portal.Desktop acquired") || !running
    }
    return text
}
