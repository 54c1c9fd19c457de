import Foundation

/// Debian's real Chromium showing one web page, served over HTTP on loopback
/// (Servers/web-page.py), in an app window at the top left of the test desktop, so that a
/// click at a point of the screen (XTest, through `xdotool`) lands on the page as a
/// person's would. Chromium opens a `mailto:` link by running `xdg-email URL`, found in
/// the `PATH` of `environment`.
public final class BrowserPage: @unchecked Sendable {
    private let server: ServerProcess
    private let browser: DesktopProgram
    private let display: String
    public let url: String

    /// `body` goes into a page whose title becomes "Ready" once it has loaded.
    public init(body: String, desktop: TestDesktop, environment: [String: String], directory: URL) throws {
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
        var arguments = [
            "/usr/bin/chromium", "--user-data-dir=\(site.appendingPathComponent("profile").path)",
            "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-dev-shm-usage",
            "--password-store=basic", "--window-position=0,0", "--window-size=800,600", "--app=\(url)",
        ]
        // Chromium refuses to run as root with its sandbox; the tests run as root in CI.
        if getuid() == 0 { arguments.insert("--no-sandbox", at: 1) }
        browser = try DesktopProgram(arguments, environment: desktop.environment(environment), directory: site)
        let shown = try run("/usr/bin/timeout", ["60", "/usr/bin/xdotool", "search", "--sync", "--onlyvisible", "--name", "^Ready$"],
                            environment: ["DISPLAY": display], timeout: 70)
        guard shown.status == 0 else {
            throw TestSupportError("Chromium did not show \(url) within 60 s: \(shown) \(browser.finish(timeout: 1))")
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
