import Foundation

/// A real web browser showing one web page, served over HTTP on loopback
/// (Servers/web-page.py), filling the top left of the test desktop, so that a click at a
/// point of the screen (XTest, through `xdotool`) lands on the page as a person's would.
/// Debian's Chromium opens a `mailto:` link through the OpenURI portal when one is on its
/// session bus, else by running `xdg-email URL` (found in the `PATH` of `environment`);
/// Firefox ESR launches the system's handler's desktop file through GIO.
public final class BrowserPage: @unchecked Sendable {
    private let server: ServerProcess
    private let browser: DesktopProgram
    private let display: String
    public let url: String

    public enum Browser: Sendable {
        case chromium
        /// Firefox ESR, full screen (`--kiosk`), in a profile of its own.
        case firefox
    }

    /// `body` goes into a page whose title becomes "Ready" once it has loaded. The browser
    /// runs on `desktop`, on `bus` when given (else the desktop's session bus).
    public init(body: String, desktop: TestDesktop, environment: [String: String], directory: URL,
                browser kind: Browser = .chromium, bus: String? = nil) throws {
        let site = directory.appendingPathComponent("site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        let page = """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>Loading</title>
            <script>addEventListener("load", () => { requestAnimationFrame(() => { document.title = "Ready"; }); });</script>
            </head><body style="margin:0">\(body)</body></html>
            """
        try page.write(to: site.appendingPathComponent("page.html"), atomically: true, encoding: .utf8)
        let ready = site.appendingPathComponent("port")
        server = try ServerProcess(
            ["/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/web-page.py").path,
             "--dir", site.path, "--ready", ready.path],
            output: site.appendingPathComponent("server.log").path)
        try server.waitForReady(ready.path, name: "the web page's HTTP server")
        url = "http://127.0.0.1:\(try String(contentsOf: ready, encoding: .utf8))/page.html"
        display = desktop.display
        let profile = site.appendingPathComponent("profile")
        var arguments: [String]
        switch kind {
        case .chromium:
            arguments = [
                "/usr/bin/chromium", "--user-data-dir=\(profile.path)",
                "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-dev-shm-usage",
                "--password-store=basic", "--window-position=0,0", "--window-size=800,600", "--app=\(url)",
            ]
            // Chromium refuses to run as root with its sandbox; the tests run as root in CI.
            if getuid() == 0 { arguments.insert("--no-sandbox", at: 1) }
        case .firefox:
            try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
            // No first-run pages, no default-browser question, no data reporting notice.
            try """
                user_pref("browser.shell.checkDefaultBrowser", false);
                user_pref("browser.aboutwelcome.enabled", false);
                user_pref("browser.startup.homepage_override.mstone", "ignore");
                user_pref("datareporting.policy.dataSubmissionEnabled", false);
                user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
                """.write(to: profile.appendingPathComponent("user.js"), atomically: true, encoding: .utf8)
            arguments = ["/usr/bin/firefox-esr", "--profile", profile.path, "--no-remote", "--new-instance", "--kiosk", url]
        }
        var environment = desktop.environment(environment)
        if let bus { environment["DBUS_SESSION_BUS_ADDRESS"] = bus }
        browser = try DesktopProgram(arguments, environment: environment, directory: site)
        // A bound for a browser that never shows the page, not a measure: a browser's first
        // start on two loaded cores took over 60 s in a full run. xdotool's --onlyvisible
        // asks each window's attributes, and dies of BadWindow when one is gone meanwhile
        // (a browser's short-lived windows as it starts): then it is asked again.
        let deadline = Date().addingTimeInterval(180)
        var shown: RunResult
        repeat {
            let left = max(1, Int(deadline.timeIntervalSinceNow.rounded(.up)))
            shown = try run("/usr/bin/timeout", ["\(left)", "/usr/bin/xdotool", "search", "--sync", "--onlyvisible", "--name", "^Ready( |$)"],
                            environment: ["DISPLAY": display], timeout: Double(left) + 10)
        } while shown.status != 0 && shown.stderr.contains("BadWindow") && deadline.timeIntervalSinceNow > 0
        guard shown.status == 0 else {
            throw TestSupportError("\(kind) did not show \(url) within 180 s: \(shown) \(browser.finish(timeout: 1))")
        }
    }

    /// A left click at (`x`, `y`) on the screen.
    public func click(x: Int, y: Int) throws {
        let result = try run("/usr/bin/xdotool", ["mousemove", "\(x)", "\(y)", "click", "1"], environment: ["DISPLAY": display])
        guard result.status == 0 else { throw TestSupportError("xdotool could not click: \(result)") }
    }

    deinit {
        // The browser goes with its session (DesktopProgram), the server here.
        server.stop()
    }
}
