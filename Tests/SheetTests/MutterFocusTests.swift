import Foundation
import Testing
import TestSupport

/// Whether the window a click opens takes the keyboard focus, under a real window manager's
/// focus rules: Debian's mutter 43 headless (HeadlessMutter), a focused GTK application
/// clicked through mutter's RemoteDesktop API (Servers/link-clicker.py) opening a `mailto:`
/// link as Firefox does (GIO's launch with the display's launch context) and as Chromium does
/// (the real xdg-desktop-portal's OpenURI with an activation token), with the desktop service
/// D-Bus activated by the click and already running, with mutter's default focus rule and
/// with `focus-new-windows=strict`. Judged as a screen reader would: the sheet's frame is
/// STATE_ACTIVE. One at a time: each has a compositor of its own.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: HeadlessMutter.program), "mutter is not installed"))
struct MutterFocusTests {
    /// How the link reaches mailto-route.
    enum Opener: String, CaseIterable, CustomStringConvertible {
        /// Firefox: g_app_info_launch_default_for_uri with the display's launch context.
        case gio
        /// Chromium: org.freedesktop.portal.OpenURI with an activation_token.
        case portal
        /// A launcher of the service's D-Bus activatable entry: org.freedesktop.Application.Open
        /// with a desktop-startup-id in its platform data.
        case open
        /// No click: the focused window is the terminal in which a person types a command.
        case none

        var description: String { rawValue }
    }

    /// Whether the desktop service runs before the click.
    enum Service: String, CaseIterable, CustomStringConvertible {
        /// D-Bus activated by the click's Compose.
        case cold
        case running

        var description: String { rawValue }
    }

    @Test(arguments: [HeadlessMutter.FocusNewWindows.smart, .strict], [
        (Opener.gio, Service.cold), (.gio, .running), (.portal, .cold), (.portal, .running), (.open, .cold), (.open, .running),
    ])
    func aClickedLinksSheetTakesTheFocus(_ focus: HeadlessMutter.FocusNewWindows, _ click: (Opener, Service)) throws {
        let (opener, service) = click
        let sandbox = try Sandbox()
        // An account (no server needed: nothing is sent), so that the click opens the sheet.
        try writeAccount(sandbox, port: 9, security: "none")
        let desk = try Desk(sandbox, focus: focus, opener: opener)
        if service == .running {
            let started = try desk.session.bus.gdbus([
                "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                "--method", "org.freedesktop.DBus.StartServiceByName", HeadlessServiceTests.serviceName, "0",
            ], environment: desk.session.environment)
            #expect(started.status == 0, "\(started)")
        }
        let clicker = try desk.click(opener)
        defer { clicker.stop() }
        let steps: [[String: Any]]
        do {
            steps = try desk.session.drive(["wait-sheet", "wait-sheet-active"])
        } catch {
            throw TestSupportError("\(error)\n--- what the session's programs said\n\(desk.said)")
        }
        let active = steps.first { $0["step"] as? String == "wait-sheet-active" }?["active"] as? [String]
        #expect(active?.contains { $0.hasSuffix(": New Message") || $0.contains(": Message to ") } == true, "\(steps)")
        #expect(active?.contains { $0.hasSuffix(": Link Clicker") } == false, "\(steps)")
    }

    /// A click that opens no window (a handoff) leaves no busy cursor and no focus behind on
    /// Wayland: the mail program it starts is given the token mutter issued for the click, to
    /// take the focus with and to end the startup sequence.
    @Test(arguments: [Opener.gio, .portal])
    func aHandoffGivesTheClicksTokenToTheMailProgram(_ opener: Opener) throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("tokenbird.desktop", name: "Token Bird", program: "tokenbird", extraLines: ["StartupNotify=true"])
        let record = sandbox.recordsDirectory.appendingPathComponent("tokenbird.tokens").path
        // The recorder, replaced by one that writes the two variables it was started with.
        let program = try sandbox.installScript("tokenbird", """
            printf '%s|%s' "$XDG_ACTIVATION_TOKEN" "$DESKTOP_STARTUP_ID" > '\(record).new' && mv '\(record).new' '\(record)'
            """)
        let entry = sandbox.systemApplications.appendingPathComponent("tokenbird.desktop")
        let text = try String(contentsOf: entry, encoding: .utf8)
        let exec = try #require(text.split(separator: "\n").first { $0.hasPrefix("Exec=") })
        try text.replacingOccurrences(of: String(exec), with: "Exec=\(program) %u").write(to: entry, atomically: false, encoding: .utf8)
        try sandbox.write("[route]\npolicy=handoff\nhandler=tokenbird.desktop\n", to: "home/.config/mailto-route/config")
        let desk = try Desk(sandbox, focus: .smart, opener: opener)
        let clicker = try desk.click(opener)
        defer { clicker.stop() }
        try waitUntil("tokenbird was started; the session's log: \(desk.said)") { FileManager.default.fileExists(atPath: record) }
        let tokens = (sandbox.contents(URL(fileURLWithPath: record)) ?? "").split(separator: "|", omittingEmptySubsequences: false)
        // mutter's token (its own form, not a test's): both variables, one value.
        #expect(tokens.count == 2 && !tokens[0].isEmpty && tokens[0] == tokens[1], "\(tokens)")
    }

    /// A click that opens no window and starts no program (no mail program, no account: a
    /// draft) leaves no busy cursor on Wayland: mutter's startup sequence for the click's
    /// token is ended at once (gtk_shell1.set_startup_id), not by its 15 s timeout. Told by
    /// mutter's own log (MUTTER_DEBUG=startup): once the draft is saved (the click's busy
    /// cursor was set before mailto-route started), the cursor comes back to the default
    /// without mutter reporting the click's sequence timed out.
    @Test(arguments: [Opener.gio, .portal])
    func aClickThatOpensNoWindowLeavesNoBusyCursor(_ opener: Opener) throws {
        let sandbox = try Sandbox()
        try sandbox.write("[route]\npolicy=handoff\n", to: "home/.config/mailto-route/config")
        let desk = try Desk(sandbox, focus: .smart, opener: opener)
        let clicker = try desk.click(opener)
        defer { clicker.stop() }
        let token = try #require(desk.clicked.first { $0.hasPrefix("token ") }?.dropFirst(6), "\(desk.clicked)")
        let drafts = sandbox.dataHome.appendingPathComponent("mailto-route/drafts")
        try waitUntil("the click was saved as a draft; the session's log: \(desk.said)") {
            !((try? FileManager.default.contentsOfDirectory(atPath: drafts.path)) ?? []).isEmpty
        }
        var lines: [Substring] = []
        // An unended sequence times out 15 s after the click, and the wait (`patience`) is
        // longer: then the default cursor comes back too, after the timeout's line.
        try waitUntil("mutter's cursor is the default one again: \(lines)") {
            lines = desk.said(all: true).split(separator: "\n").filter { $0.contains("STARTUP: ") }
            return lines.last { $0.hasSuffix(" cursor") }?.hasSuffix("Setting default cursor") == true
        }
        #expect(!lines.contains { $0.hasSuffix("Timed out sequence \(token)") }, "\(lines)")
    }

    /// A sandbox's desktop under mutter: mailto-route registered as the mailto: handler, the
    /// session (bus, AT-SPI, mutter), and for Chromium's way the real portal. `url` is the
    /// link the click opens; `path`, when given, the PATH of the session and what it starts.
    struct Desk {
        let session: HeadlessMutter
        let log: URL
        let sandbox: Sandbox
        let url: String

        init(_ sandbox: Sandbox, focus: HeadlessMutter.FocusNewWindows, opener: Opener,
             url: String = "mailto:joe@example.org?subject=Focus", path: String? = nil) throws {
            self.sandbox = sandbox
            self.url = url
            var environment = sandbox.environment
            if let path { environment["PATH"] = path }
            environment["MAILTO_ROUTE_HANDOFF"] = nil
            // Up long enough to be the running service a click finds.
            environment["MAILTO_ROUTE_SERVICE_IDLE"] = "60"
            let register = try run(mailtoRouteBinary, ["register"], environment: environment)
            guard register.status == 0 else { throw TestSupportError("register: \(register)") }
            log = sandbox.root.appendingPathComponent("session.log")
            session = try HeadlessMutter(focusNewWindows: focus, environment: environment,
                                         services: sandbox.dataHome.appendingPathComponent("dbus-1/services"), log: log)
            guard opener == .portal else { return }
            // xdg-desktop-portal 1.16 serves OpenURI only with an AppChooser backend; for a
            // scheme with a default handler it launches that itself and never asks the
            // backend, so one that is described but never runs is enough.
            let portals = sandbox.root.appendingPathComponent("portals")
            try sandbox.write("[portal]\nDBusName=org.freedesktop.impl.portal.desktop.test\n"
                              + "Interfaces=org.freedesktop.impl.portal.AppChooser;\nUseIn=X-Test\n", to: "portals/test.portal")
            var portal = session.environment
            portal["XDG_DESKTOP_PORTAL_DIR"] = portals.path
            portal["XDG_CURRENT_DESKTOP"] = "X-Test"
            try session.start(["/usr/libexec/xdg-permission-store", "--replace"], owning: "org.freedesktop.impl.portal.PermissionStore", log: log)
            try session.start([realPortal, "--replace"], owning: "org.freedesktop.portal.Desktop", log: log, environment: portal)
        }

        /// What the clicker recorded (Servers/link-clicker.py), a line each.
        var clicked: [String] {
            ((try? String(contentsOf: sandbox.root.appendingPathComponent("clicker.record"), encoding: .utf8)) ?? "")
                .split(separator: "\n").map(String.init)
        }

        /// Starts the focused application that clicks a mailto: link `opener`'s way, and
        /// waits until the link has been opened (for `.none`, until it has the focus).
        func click(_ opener: Opener) throws -> ServerProcess {
            let record = sandbox.root.appendingPathComponent("clicker.record")
            let clicker = try ServerProcess([
                "/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/link-clicker.py").path,
                "--url", url, "--how", opener.rawValue, "--record", record.path,
            ], environment: session.environment, unset: ["DISPLAY"], output: log.path)
            var lines: [String] = []
            do {
                try waitUntil("the clicker opened the link: \(lines); the session's log: \(said)") {
                    lines = ((try? String(contentsOf: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
                    if let failed = lines.first(where: { $0.hasPrefix("failed") }) { throw TestSupportError("link-clicker.py: \(failed)") }
                    return lines.contains(opener == .none ? "active" : "launched") || lines.contains("opened")
                }
            } catch {
                clicker.stop()
                throw error
            }
            return clicker
        }

        /// The end of what the session's programs wrote, for a failure's message; `all`: the whole.
        var said: String { said(all: false) }

        func said(all: Bool) -> String {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return all ? text : String(text.suffix(3000))
        }
    }
}
