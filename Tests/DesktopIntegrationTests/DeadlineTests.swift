import Foundation
import Testing
import TestSupport

/// Every bus call has a deadline: a session bus that takes the connection and never
/// answers costs a bounded time, never a hang. Each run ends by itself, saying which
/// deadline it gave up at (a hang is killed at the harness's patience past that deadline,
/// and fails), and not before that deadline.
@Suite struct DeadlineTests {
    /// GIO's launch first connects to the session bus (`g_bus_get`, without a deadline of
    /// its own); Launcher.launchTimeout (30 s) bounds it, and the message is kept.
    @Test func handoffOverABusThatNeverAnswersEndsAtTheLaunchDeadline() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        let socket = try silentBus(in: sandbox)
        defer { socket.listener.stop() }
        let (result, elapsed) = try timedRun(["open", "mailto:a@example.org", "--json"], in: sandbox, deadline: 30,
                                             ["DBUS_SESSION_BUS_ADDRESS": socket.address])
        #expect(result.status == 3, "\(result)")
        #expect(result.stdout.contains("was not seen to start within 30 s"), "\(result)")
        #expect(elapsed >= .seconds(30), "\(elapsed)")
        #expect(sandbox.drafts.count == 1)
    }

    /// A D-Bus-activatable mail program that takes its name and never answers the `Open`
    /// call (stuck at start): the handoff waits for its answer no longer than GDBus's call
    /// timeout (25 s, within Launcher.launchTimeout), then says so, and the message is kept.
    @Test func dbusActivatableProgramThatNeverAnswersEndsAtTheDeadline() throws {
        let (sandbox, bus, record) = try DBusActivatableHandoffTests.sandbox(answer: "never")
        let (result, elapsed) = try timedRun(["open", "mailto:a@example.org", "--json"], in: sandbox, deadline: 25,
                                             ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(result.status == 3, "\(result)")
        // GIO's words for its call that ran out of time.
        #expect(result.stdout.contains("cannot start Example Mail (org.example.Mail.desktop): launch failed: Timeout was reached"),
                "\(result)")
        #expect(elapsed >= .seconds(25), "\(elapsed)")
        #expect(DBusActivatableHandoffTests.calls(record).count == 1, "the program never got the call")
        #expect(sandbox.drafts.count == 1)
    }

    /// GIO's NetworkManager monitor connects to the system bus with blocking calls of its
    /// own; NetworkMonitor.startTimeout (10 s) bounds them, and `outbox watch` says why it
    /// cannot watch.
    @Test func outboxWatchOverASystemBusThatNeverAnswersEndsAtTheMonitorDeadline() throws {
        let sandbox = try Sandbox()
        let socket = try silentBus(in: sandbox)
        defer { socket.listener.stop() }
        let (result, elapsed) = try timedRun(["outbox", "watch"], in: sandbox, deadline: 10,
                                             ["DBUS_SYSTEM_BUS_ADDRESS": socket.address])
        #expect(result.status != 0, "\(result)")
        #expect(result.stderr.contains("GIO's network monitor did not start within 10 s"), "\(result)")
        #expect(elapsed >= .seconds(10), "\(elapsed)")
    }

    /// Runs the built binary in `sandbox` (its `bin` first in PATH), which should give up at
    /// `deadline` seconds; killed at the harness's patience past it. Returns how long it
    /// ran, from before it started: no shorter than the deadline it waited out, however
    /// loaded the machine.
    private func timedRun(
        _ arguments: [String], in sandbox: Sandbox, deadline: Double, _ extra: [String: String]
    ) throws -> (RunResult, Duration) {
        let clock = ContinuousClock()
        let started = clock.now
        let result = try run(mailtoRouteBinary, arguments, environment: sandbox.environment(extra), timeout: deadline + patience)
        return (result, clock.now - started)
    }
}
