import Foundation
import Testing
import TestSupport

/// The window of the application a request came from, as the portal names it (the Email
/// portal's `parent_window`, the OpenURI launch's `PARENT_WINDOW_ID`): the sheet is made
/// transient for it, so that the window manager keeps the sheet above the application. An
/// application's real window on the test desktop's Xvfb is the parent (Servers/parent-window.py),
/// and the X server says what the sheet's WM_TRANSIENT_FOR names (xprop).
extension ServiceTests.Service {
    /// A window of an application of the test's on the test desktop's display, and its id
    /// as the portal names it (`x11:XID`).
    func applicationWindow() throws -> (program: ServerProcess, id: String) {
        let printed = sandbox.root.appendingPathComponent("parent-window-\(UUID().uuidString)")
        let program = try ServerProcess(["/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/parent-window.py").path],
                                        environment: ["DISPLAY": desktop.display], output: printed.path)
        var id = ""
        try waitUntil("the application's window is on the display") {
            id = sandbox.contents(printed)?.split(separator: "\n").first { $0.hasPrefix("x11:") }.map(String.init) ?? ""
            return !id.isEmpty
        }
        return (program, id)
    }

    /// The X window titled `title` on the test desktop's display (xdotool), as xprop takes it.
    func xWindow(titled title: String) throws -> String {
        let search = try run("/usr/bin/xdotool", ["search", "--name", "^\(title)$"], environment: ["DISPLAY": desktop.display])
        return try #require(search.stdout.split(separator: "\n").first.map(String.init), "\(search)")
    }

    /// xprop's lines of `window` (all its properties, or those named).
    func xProperties(_ window: String, _ names: [String] = []) throws -> String {
        try run("/usr/bin/xprop", ["-id", window] + names, environment: ["DISPLAY": desktop.display]).stdout
    }

    /// The window WM_TRANSIENT_FOR names on the window titled `title`, as `x11:XID`; `nil`
    /// when it has none.
    func transientParent(ofWindowTitled title: String) throws -> String? {
        // "WM_TRANSIENT_FOR(WINDOW): window id # 0x1e00007"
        let property = try xProperties(try xWindow(titled: title), ["WM_TRANSIENT_FOR"])
        guard let hex = property.split(separator: "#").last?.trimmingCharacters(in: .whitespacesAndNewlines),
              hex.hasPrefix("0x"), let id = UInt(hex.dropFirst(2), radix: 16) else { return nil }
        return "x11:" + String(id, radix: 16)
    }

    /// An application's ComposeEmail naming its window as `parent_window`: the window the
    /// request opens (waited for with `wait`, titled `title`) is transient for it; Cancel
    /// (the window gone by `gone`) is the portal's response 1.
    func expectPortalWindowKeptAbove(wait: String, title: String, gone: String) throws {
        let parent = try applicationWindow()
        defer { parent.program.stop() }
        let call = try compose(["--handle", "/org/freedesktop/portal/desktop/request/1_42/parent", "--app-id",
                                "org.gnome.TextEditor", "--to", "joe@example.com", "--parent-window", parent.id])
        _ = try desktop.drive([wait], timeout: 30)
        #expect(try transientParent(ofWindowTitled: title) == parent.id)
        _ = try desktop.drive(["press:Cancel", gone], timeout: 20)
        let result = call.finish(timeout: 30)
        #expect(try jsonObject(result.stdout)["response"] as? Int == 1, "\(result)")
    }

    @Test func theEmailPortalsSheetIsKeptAboveTheApplicationsWindow() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        try expectPortalWindowKeptAbove(wait: "wait-sheet", title: "Message to joe@example.com", gone: "wait-gone")
    }

    /// With no account the request asks first: the chooser is kept above the application too.
    @Test func theEmailPortalsChooserIsKeptAboveTheApplicationsWindow() throws {
        try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
        try expectPortalWindowKeptAbove(wait: "wait-chooser", title: "Choose How to Send", gone: "wait-chooser-gone")
    }

    /// A link the OpenURI portal launched (GIO's launch, with PARENT_WINDOW_ID added by the
    /// portal's launch context) opens its sheet above the application that asked.
    @Test func theOpenURIPortalsSheetIsKeptAboveTheApplicationsWindow() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let parent = try applicationWindow()
        defer { parent.program.stop() }
        var launch = environment
        launch["PARENT_WINDOW_ID"] = parent.id
        let entry = sandbox.dataHome.appendingPathComponent("applications/mailto-route.desktop").path
        let gio = try DesktopProgram(["/usr/bin/gio", "launch", entry, "mailto:ann@example.com?subject=Above"],
                                     environment: launch, directory: sandbox.root)
        _ = try desktop.drive(["wait-sheet"], timeout: 30)
        #expect(try transientParent(ofWindowTitled: "Message to ann@example.com") == parent.id)
        _ = try desktop.drive(["press:Cancel", "wait-gone"], timeout: 20)
        _ = gio.finish()
    }
}
