import Foundation
import Testing
import TestSupport

/// A click that opens no window leaves no busy cursor on X11: the startup sequence its
/// launcher began (`DESKTOP_STARTUP_ID`) is ended with the spec's `remove` message, seen on
/// the test desktop's Xvfb by a listener as a desktop's launch feedback sees it
/// (Servers/startup-listener.py, python3-xlib); unless the mail program a handoff started
/// says it ends it itself (`StartupNotify=true`).
@Suite(.serialized) struct StartupSequenceTests {
    enum Click: String, CaseIterable, CustomStringConvertible {
        /// Handed off to a mail program whose entry does not say StartupNotify.
        case handoff
        /// No mail program and no account: saved as a draft.
        case draft
        /// Handed off to a mail program whose entry says StartupNotify=true.
        case handoffToAStartupNotifyProgram

        var description: String { rawValue }
    }

    @Test(arguments: Click.allCases)
    func aClickThatOpensNoWindowEndsItsStartupSequence(_ click: Click) throws {
        let desktop = try TestDesktop.shared.get()
        let sandbox = try Sandbox()
        let ready = sandbox.root.appendingPathComponent("listening")
        let record = sandbox.root.appendingPathComponent("startup-messages")
        let listener = try ServerProcess([
            "/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/startup-listener.py").path,
            "--ready", ready.path, "--record", record.path,
        ], environment: ["DISPLAY": desktop.display], output: sandbox.root.appendingPathComponent("listener.log").path)
        defer { listener.stop() }
        try listener.waitForReady(ready.path, name: "the startup message listener")
        switch click {
        case .handoff, .handoffToAStartupNotifyProgram:
            try sandbox.installHandler("bird.desktop", name: "Bird", program: "bird",
                                       extraLines: click == .handoff ? [] : ["StartupNotify=true"])
            try sandbox.write("[route]\npolicy=handoff\nhandler=bird.desktop\n", to: "home/.config/mailto-route/config")
        case .draft:
            try sandbox.write("[route]\npolicy=handoff\n", to: "home/.config/mailto-route/config")
        }
        let id = "mailto-route-test-\(click)_TIME42"
        let result = try routeWithoutTerminal(["open", "mailto:joe@example.org?subject=Busy"], in: sandbox,
                                              ["DISPLAY": desktop.display, "DESKTOP_STARTUP_ID": id])
        #expect(result.status == (click == .draft ? 3 : 0), "\(result)")
        // Then a message of the test's own: once the listener has it, it has had whatever
        // mailto-route sent before it ended.
        let marker = try run("/usr/bin/python3", ["-c", """
            from Xlib import X, display, protocol
            d = display.Display(); root = d.screen().root
            w = root.create_window(-100, -100, 1, 1, 0, X.CopyFromParent)
            text = b'remove: ID="marker"\\0'
            for i in range(0, len(text), 20):
                t = d.intern_atom("_NET_STARTUP_INFO_BEGIN" if i == 0 else "_NET_STARTUP_INFO")
                chunk = text[i:i + 20].ljust(20, b'\\0')
                root.send_event(protocol.event.ClientMessage(window=w, client_type=t, data=(8, chunk)), event_mask=X.PropertyChangeMask)
            d.sync()
            """], environment: ["DISPLAY": desktop.display, "PATH": "/usr/bin:/bin"])
        #expect(marker.status == 0, "\(marker)")
        var lines: [String] = []
        try waitUntil("the listener had the test's own message: \(lines)") {
            lines = ((try? String(contentsOf: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            return lines.contains("remove: ID=\"marker\"")
        }
        let ended = lines.contains("remove: ID=\"\(id)\"")
        #expect(ended == (click != .handoffToAStartupNotifyProgram), "\(lines)")
    }
}
