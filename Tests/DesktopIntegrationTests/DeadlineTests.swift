import Foundation
import Testing
import TestSupport

/// Every bus call has a deadline: a session bus that takes the connection and never
/// answers costs a bounded time, never a hang.
@Suite struct DeadlineTests {
    /// GIO's launch first connects to the session bus (`g_bus_get`, without a deadline of
    /// its own); Launcher.launchTimeout (30 s) bounds it, and the message is kept.
    @Test func handoffOverABusThatNeverAnswersEndsAtTheLaunchDeadline() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        let socket = sandbox.root.appendingPathComponent("silent-bus").path
        let ready = sandbox.root.appendingPathComponent("silent-bus.ready").path
        // Listens and never accepts: connecting succeeds, authentication never ends.
        let listener = try ServerProcess(["/usr/bin/python3", "-c", """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
            open(sys.argv[2], "w").close(); time.sleep(90)
            """, socket, ready])
        defer { listener.stop() }
        try listener.waitForReady(ready, name: "the silent bus listener")
        let clock = ContinuousClock()
        let started = clock.now
        let result = try run(mailtoRouteBinary, ["open", "mailto:a@example.org", "--json"],
                             environment: sandbox.environment(["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(socket)"]),
                             timeout: 80)
        let elapsed = clock.now - started
        #expect(elapsed < .seconds(45), "\(elapsed)")
        #expect(result.status == 3, "\(result)")
        #expect(result.stdout.contains("was not seen to start within 30 s"), "\(result)")
        #expect(sandbox.drafts.count == 1)
    }
}
