import Foundation
import Testing
import TestSupport

/// Copy Address on Wayland, under Debian's mutter 43 headless (HeadlessMutter): mutter sets
/// the selection only for the client with the keyboard focus, and the desktop service asked
/// by `mailto-route copy` from a terminal (or by a click or a chooser whose window has gone)
/// has no window, so its own copy is refused; it then hands the text to `wl-copy`
/// (wl-clipboard). A sheet that has the focus copies on its own. Read back with `wl-paste`, an independent
/// judge, after the program that asked has exited. The seat has a keyboard (and the
/// terminal the focus) through link-clicker.py's RemoteDesktop session: without one,
/// wl-paste says "This seat has no keyboard". One at a time: each has a compositor of its own.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: HeadlessMutter.program), "mutter is not installed"))
struct WaylandCopyTests {
    static let link = "mailto:%C3%A5sa@example.org,Joe%20<joe@xn--bcher-kva.example>"
    static let copied = "åsa@example.org, Joe <joe@bücher.example>"

    /// What the compositor's clipboard holds now, as another program pastes it.
    func pasted(_ desk: MutterFocusTests.Desk) throws -> RunResult {
        try run("/usr/bin/wl-paste", ["--no-newline"], environment: desk.session.environment, timeout: 30)
    }

    /// From a terminal that has the focus: the service's own copy is refused, wl-copy's is
    /// not; the report says `copied` only because the clipboard really holds the text.
    @Test func copyFromATerminalReachesTheClipboard() throws {
        let desk = try MutterFocusTests.Desk(Sandbox(), focus: .smart, opener: .none)
        let terminal = try desk.click(.none)
        defer { terminal.stop() }
        let copy = try run(mailtoRouteBinary, ["copy", Self.link, "--json"], environment: desk.session.environment, timeout: 30)
        #expect(copy.status == 0, "\(copy)\n\(desk.said)")
        #expect(try jsonObject(copy.stdout)["result"] as? String == "copied", "\(copy)")
        let clipboard = try pasted(desk)
        #expect(clipboard.status == 0, "\(clipboard)")
        #expect(clipboard.stdout == Self.copied, "\(clipboard)")
    }

    /// Without wl-copy on the service's PATH nothing can take the clipboard: one line that
    /// says why, exit 1, never `copied`; and wl-paste finds nothing there.
    @Test func withoutWlCopyNothingCopiedIsClaimed() throws {
        let sandbox = try Sandbox()
        let desk = try MutterFocusTests.Desk(sandbox, focus: .smart, opener: .none, path: try sandbox.isolatedPath())
        let terminal = try desk.click(.none)
        defer { terminal.stop() }
        let copy = try run(mailtoRouteBinary, ["copy", Self.link], environment: desk.session.environment, timeout: 30)
        #expect(copy.status == 1, "\(copy)")
        #expect(copy.stdout.isEmpty, "\(copy)")
        let lines = copy.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(copy)")
        #expect(lines.first?.hasPrefix("mailto-route: not copied: the compositor gives the clipboard only to the window with "
                                       + "the keyboard focus, and wl-copy") == true, "\(copy)")
        let clipboard = try pasted(desk)
        #expect(clipboard.status != 0 && clipboard.stdout != Self.copied, "\(clipboard)")
    }

    /// The chooser of a clicked link (no account), with the focus the click gave it: Down
    /// moves to Copy Address and Return takes it just this once, pressed on mutter's virtual
    /// keyboard (real input, Servers/remote-keys.py). The addresses on the clipboard after
    /// the chooser has gone, and the log counts `copied`.
    @Test func theChoosersCopyAddressReachesTheClipboard() throws {
        let sandbox = try Sandbox()
        let desk = try MutterFocusTests.Desk(sandbox, focus: .smart, opener: .gio,
                                             url: "mailto:ann@example.com?cc=Bob%20Berg%20%3Cbob@example.org%3E")
        let clicker = try desk.click(.gio)
        defer { clicker.stop() }
        let steps = try desk.session.drive(["wait-chooser", "wait-chooser-active"])
        let offered = try #require(steps.first { $0["step"] as? String == "wait-chooser" }?["ways"] as? [String])
        #expect(offered == ["Set up sending…", "Copy Address"], "\(offered)")
        let keyDown = "108", keyEnter = "28"
        let keys = try run("/usr/bin/python3", [packageRoot.appendingPathComponent("Tests/TestSupport/Servers/remote-keys.py").path,
                                                keyDown, keyEnter], environment: desk.session.environment, timeout: 30)
        #expect(keys.status == 0, "\(keys)")
        _ = try desk.session.drive(["wait-chooser-gone"])
        try waitUntil("the chooser's Copy Address was logged; the session's log: \(desk.said)") {
            try copiedCount(desk) == 1
        }
        let clipboard = try pasted(desk)
        #expect(clipboard.stdout == "ann@example.com, Bob Berg <bob@example.org>", "\(clipboard)")
    }

    /// The sheet's menu, in a sheet that has the focus: the service's own copy, which mutter
    /// takes (no wl-copy on PATH here), still on the clipboard after the sheet was cancelled
    /// and the click has ended.
    @Test func theSheetsMenuCopiesWithItsOwnFocus() throws {
        let sandbox = try Sandbox()
        try writeAccount(sandbox, port: 9, security: "none")
        let desk = try MutterFocusTests.Desk(sandbox, focus: .smart, opener: .gio,
                                             url: "mailto:ann@example.com?cc=Bob%20Berg%20%3Cbob@xn--bcher-kva.example%3E",
                                             path: try sandbox.isolatedPath())
        let clicker = try desk.click(.gio)
        defer { clicker.stop() }
        _ = try desk.session.drive(["wait-sheet", "wait-sheet-active", "menu:Copy Address", "wait-label:Copied:", "press:Cancel", "wait-gone"])
        let clipboard = try pasted(desk)
        #expect(clipboard.stdout == "ann@example.com, Bob Berg <bob@bücher.example>", "\(clipboard)")
    }

    /// How many routes the outcome log counts as `copied`.
    func copiedCount(_ desk: MutterFocusTests.Desk) throws -> Int? {
        let log = try run(mailtoRouteBinary, ["log", "--stats", "--json"], environment: desk.session.environment)
        return (try jsonObject(log.stdout)["byResult"] as? [String: Any])?["copied"] as? Int
    }

    /// A clicked link when Copy Address was kept with Always (`always=copy`): no window
    /// opens, so the service has no focus either; the addresses are on the clipboard after
    /// the click, and the log counts `copied`.
    @Test func aClickedLinkKeptAsCopyReachesTheClipboard() throws {
        let sandbox = try Sandbox()
        try sandbox.write("[route]\nalways=copy\n", to: "home/.config/mailto-route/config")
        let desk = try MutterFocusTests.Desk(sandbox, focus: .smart, opener: .gio,
                                             url: "mailto:ann@example.com?cc=Bob%20Berg%20%3Cbob@example.org%3E")
        let clicker = try desk.click(.gio)
        defer { clicker.stop() }
        try waitUntil("the click was logged as copied; the session's log: \(desk.said)") { try copiedCount(desk) == 1 }
        let clipboard = try pasted(desk)
        #expect(clipboard.stdout == "ann@example.com, Bob Berg <bob@example.org>", "\(clipboard)")
    }
}
