import Foundation
import Testing
import TestSupport

/// A launcher's token in the platform data of org.freedesktop.Application's Open, under the
/// key GLib 2.76 and later send beside desktop-startup-id (`activation-token`), which GTK
/// 4.8 does not read itself: the service puts it on the display, where the first window the
/// call opens takes it; on X11 its client leader carries it as _NET_STARTUP_ID.
extension ServiceTests.Service {
    /// _NET_STARTUP_ID of `window` and of its client leader (GDK puts the display's there),
    /// as xprop prints them.
    func startupID(of window: String) throws -> String {
        let properties = try xProperties(window)
        let leader = try #require(properties.split(separator: "\n").first { $0.hasPrefix("WM_CLIENT_LEADER") }?
            .split(separator: " ").last.map(String.init), "\(properties)")
        return try xProperties(leader, ["_NET_STARTUP_ID"]) + xProperties(window, ["_NET_STARTUP_ID"])
    }

    @Test func anActivationTokenAloneInOpensPlatformDataReachesTheSheet() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let token = "mailto-route-test-\(getpid())_TIME4343"
        let reply = try gdbus(["--dest", "io.github.mailto_route.MailtoRoute", "--object-path",
                               "/io/github/mailto_route/MailtoRoute", "--method", "org.freedesktop.Application.Open",
                               "['mailto:amy@example.com?subject=Token']", "{'activation-token': <'\(token)'>}"])
        #expect(reply.status == 0, "\(reply)")
        _ = try desktop.drive(["wait-sheet"], timeout: 30)
        let startup = try startupID(of: try xWindow(titled: "Message to amy@example.com"))
        #expect(startup.contains("\"\(token)\""), "\(startup)")
        _ = try desktop.drive(["press:Cancel", "wait-gone"], timeout: 20)
    }
}
