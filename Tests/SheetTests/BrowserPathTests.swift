import Foundation
import Testing
import TestSupport

extension SheetTests.WebPageLink {
    // MARK: - The ways a browser's click really takes (issue 33)

    /// mailto-route registered over a recording Thunderbird, no account: a click asks once,
    /// and "Open in Thunderbird", "Just this once" hands the link off. Returns the log's
    /// last line once the handoff is logged.
    func handOffTheClick(on page: BrowserPage) throws -> String {
        try page.click(x: 400, y: 300)
        _ = try desktop.drive(["wait-chooser", "pick:Open in Thunderbird", "press:Just this once", "wait-chooser-gone"], timeout: 30)
        let argv = try #require(sandbox.recordedArgv("thunderbird", timeout: 30))
        #expect(argv == ["mailto:support@evil.example?subject=Support"], "\(argv)")
        try waitUntil("the handoff is logged") { outcomes().last?.contains("\"handedOff\"") == true }
        return try #require(outcomes().last)
    }

    func registerOverThunderbird() throws {
        try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
        try sandbox.setDefaultMailHandler("thunderbird.desktop")
        try register()
    }

    /// mailto-route as the desktop's `mailto:` handler, which GIO and the portal launch.
    func register() throws {
        let register = try route(["register"], in: sandbox)
        #expect(register.status == 0, "\(register)")
    }

    /// Chromium with a portal on its session bus (the real xdg-desktop-portal 1.16 and its
    /// gtk backend): the click is OpenURI's, which launches mailto-route's desktop file;
    /// the handoff carries no file, and the log says `portal OpenURI`.
    @Test func chromiumWithAPortalComesThroughOpenURI() throws {
        try registerOverThunderbird()
        let portal = try OpenURIPortal(environment: environment, directory: sandbox.root)
        let page = try openPage(.chromium, bus: portal.address)
        let line = try handOffTheClick(on: page)
        #expect(try arrival(in: line) == ["portal OpenURI", nil], "\(line)")
        #expect(line.contains("not attached: \(secret) (the link asked for it"), "\(line)")
    }

    /// The same with an account: the portal's click opens the sheet, the key listed unticked.
    @Test func chromiumThroughThePortalReachesTheSheetUnticked() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        try register()
        let portal = try OpenURIPortal(environment: environment, directory: sandbox.root)
        let page = try openPage(.chromium, bus: portal.address)
        try expectTheKeyUnticked(after: page, under: "The link asks to attach", shot: "chromium-portal-unticked-attach",
                                 logged: ["portal OpenURI", nil])
    }

    /// A click on `page` opens the sheet, which lists the key unticked under `heading`;
    /// Cancel ends it, and the log line says `logged` (its arrival and who asked).
    func expectTheKeyUnticked(after page: BrowserPage, under heading: String, shot: String, logged: [String?]) throws {
        try page.click(x: 400, y: 300)
        let steps = try desktop.drive([
            "wait-sheet", "wait-label:\(heading)", "state:\(secret)", screenshot(shot), "press:Cancel", "wait-gone",
        ], timeout: 30)
        let row = try #require(steps.first { $0["step"] as? String == "state" })
        #expect(row["checked"] as? Bool == false, "\(row)")
        try waitUntil("the cancel is logged") { outcomes().last?.contains("\"cancelled\"") == true }
        #expect(try arrival(in: try #require(outcomes().last)) == logged, "\(outcomes())")
    }

    /// Firefox ESR launches the desktop file through GIO (no dialog for `mailto:`): the
    /// handoff carries no file, and the log says `gio launch`, asked by Firefox (the leader
    /// of the process group GIO left mailto-route in).
    @Test func firefoxComesThroughAGIOLaunch() throws {
        try registerOverThunderbird()
        let page = try openPage(.firefox)
        let line = try handOffTheClick(on: page)
        #expect(try arrival(in: line) == ["gio launch", "Firefox"], "\(line)")
        #expect(line.contains("not attached: \(secret) (Firefox asked for it"), "\(line)")
    }

    /// With an account, Firefox's click opens the sheet, which names Firefox as the asker.
    @Test func firefoxReachesTheSheetNamingFirefox() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        try register()
        let page = try openPage(.firefox)
        try expectTheKeyUnticked(after: page, under: "Firefox asks to attach", shot: "firefox-unticked-attach",
                                 logged: ["gio launch", "Firefox"])
    }
}
