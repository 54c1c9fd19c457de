import Foundation
import Testing
import TestSupport

/// The desktop service D-Bus activated on a bus whose activation environment has no
/// display (a session that never exported `DISPLAY`/`WAYLAND_DISPLAY` to it): it starts
/// all the same, without windows, and serves what needs none. No screen is used, so these
/// run beside the sheet tests.
@Suite struct HeadlessServiceTests {
    static let serviceName = "io.github.mailto_route.MailtoRoute"
    let sandbox: Sandbox
    let bus: PrivateSessionBus
    let environment: [String: String]

    init() throws {
        sandbox = try Sandbox()
        var environment = sandbox.environment
        environment["MAILTO_ROUTE_SERVICE_IDLE"] = "2"
        environment["MAILTO_ROUTE_HANDOFF"] = nil
        let register = try run(mailtoRouteBinary, ["register"], environment: environment)
        guard register.status == 0 else { throw TestSupportError("register: \(register)") }
        bus = try PrivateSessionBus(serviceDirectory: sandbox.dataHome.appendingPathComponent("dbus-1/services"),
                                    environment: environment, unset: ["DISPLAY", "WAYLAND_DISPLAY"])
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        self.environment = environment
        try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
    }

    /// xdg-desktop-portal's call of the backend (Servers/portal-client.py), as an
    /// application's `ComposeEmail` with two files.
    func compose() throws -> (status: Int32?, stdout: String, stderr: String, files: [String]) {
        let first = try sandbox.write("one\n", to: "files/a.txt").path
        let second = try sandbox.write("two\n", to: "files/b.txt").path
        let client = packageRoot.appendingPathComponent("Tests/TestSupport/Servers/portal-client.py").path
        let call = try DesktopProgram(["/usr/bin/python3", client, "--handle", "/org/freedesktop/portal/desktop/request/1_7/t1",
                                       "--app-id", "org.example.Editor", "--to", "joe@example.com", "--subject", "Files",
                                       "--attach", first, "--attach", second],
                                      environment: environment, directory: sandbox.root)
        let result = call.finish(timeout: 40)
        return (result.status, result.stdout, result.stderr, [first, second])
    }

    /// What Thunderbird was started with, read as Thunderbird reads `-compose`.
    func thunderbirdGot() throws -> ThunderbirdCompose {
        let argv = try #require(sandbox.recordedArgv("thunderbird", timeout: 10))
        #expect(argv.count == 2 && argv.first == "-compose", "\(argv)")
        return try ThunderbirdCompose(reading: argv.last ?? "")
    }

    /// `policy=handoff`: the files reach the mail program, and the portal's response is 0.
    @Test func portalComposeWithHandoffPolicyReachesTheMailProgram() throws {
        _ = try sandbox.write("[route]\npolicy=handoff\nhandler=thunderbird.desktop\n", to: "home/.config/mailto-route/config")
        let result = try compose()
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["response"] as? Int == 0, "\(result)")
        #expect(try thunderbirdGot().attachments == result.files)
    }

    /// An account and `policy=ask`, where the plan would show the sheet: with no display
    /// the request falls back as the command line's does, to the mail program (never sent:
    /// nothing reaches the server), and the outcome log names the handoff and why.
    @Test func portalComposeThatWouldOpenTheSheetIsHandedOffWithoutADisplay() throws {
        let server = try SMTPTestServer(.plain)
        _ = try sandbox.write("""
            [route]
            policy=ask
            handler=thunderbird.desktop
            [account]
            from=Jane Doe <jane@example.org>
            host=127.0.0.1
            port=\(server.port)
            security=none

            """, to: "home/.config/mailto-route/config", mode: 0o600)
        let result = try compose()
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["response"] as? Int == 0, "\(result)")
        #expect(try thunderbirdGot().attachments == result.files)
        #expect(server.messages.isEmpty)
        let log = try String(contentsOf: sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log"), encoding: .utf8)
        let line = try jsonObject(String(log.split(separator: "\n").last ?? ""))
        #expect(line["source"] as? String == "portal" && line["path"] as? String == "handoff", "\(log)")
        #expect((line["warnings"] as? [String])?.contains { $0.contains("no display") } == true, "\(log)")
    }

    /// "Queued: it will be retried" holds with no command, also where the service has no
    /// display: the send that queued wakes the service to own the outbox (check, which asks
    /// the bus, says so); **Retry now** once the server is back sends it, once, and the
    /// service then quits. (That it retries at the next attempt by itself, and stays while
    /// anything is queued, is the service's own behaviour: DesktopServiceTests, on a clock the
    /// test moves.)
    @Test func aQueuedMessageWakesTheServiceWhichOwnsItUntilItIsSent() throws {
        let first = try SMTPTestServer(.plain)
        let port = first.port
        first.stop()
        try writeAccount(sandbox, port: port, security: "none")
        let send = try run(mailtoRouteBinary, ["send", "--to", "joe@example.com", "--subject", "Retried", "--body", "x\n",
                                               "--json"], environment: environment, timeout: 40)
        #expect(send.status == 75, "\(send)")
        let id = try #require(try jsonObject(send.stdout)["outboxId"] as? String, "\(send)")
        // The run asked the service to own it before it returned.
        #expect(bus.hasOwner(Self.serviceName), "nothing owns the queued message")
        let check = try run(mailtoRouteBinary, ["check", "--json"], environment: environment, timeout: 30)
        #expect(check.stdout.contains("1 message waits in the outbox"), "\(check)")
        #expect(check.stdout.contains("the desktop service retries it at its next attempt"), "\(check)")
        let server = try SMTPTestServer(.plain, port: port)
        #expect(try retryNow(id).status == 0)
        // Counted once the sender has quit: nothing is left to send it again.
        #expect(bus.waitUntilUnowned(Self.serviceName, timeout: 60), "the service quits once nothing is queued")
        #expect(server.messages.count == 1, "delivered once")
        let left = try run(mailtoRouteBinary, ["outbox", "list", "--json"], environment: environment, timeout: 30)
        #expect(left.stdout.contains("\"queued\": []"), "\(left)")
    }

    /// A message queued while no session bus was there (no service to own it) is the
    /// service's from the next login: `register`'s autostart entry, run as the desktop runs
    /// it, starts the service, which owns the outbox from its start, sends the message when
    /// asked, and then quits.
    @Test func aMessageQueuedBeforeLoginIsOwnedFromTheAutostartEntry() throws {
        let first = try SMTPTestServer(.plain)
        let port = first.port
        first.stop()
        try writeAccount(sandbox, port: port, security: "none")
        var noBus = environment
        noBus["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bus"
        let send = try run(mailtoRouteBinary, ["send", "--to", "joe@example.com", "--subject", "Before login", "--body", "x\n",
                                               "--json"], environment: noBus, timeout: 40)
        #expect(send.status == 75, "\(send)")
        let id = try #require(try jsonObject(send.stdout)["outboxId"] as? String, "\(send)")
        #expect(!bus.hasOwner(Self.serviceName), "nothing was started for it")
        let server = try SMTPTestServer(.plain, port: port)

        // The login: the entry's Exec= line, as the session manager runs it.
        let entry = try String(contentsOf: sandbox.root.appendingPathComponent(
            "home/.config/autostart/io.github.mailto_route.MailtoRoute.Outbox.desktop"), encoding: .utf8)
        let exec = try #require(entry.split(separator: "\n").first { $0.hasPrefix("Exec=") }).dropFirst(5)
        let login = try DesktopProgram(exec.split(separator: " ").map(String.init), environment: environment, directory: sandbox.root)
        try waitUntil("the login started the service") { bus.hasOwner(Self.serviceName) }
        #expect(try retryNow(id).status == 0)
        let quit = login.finish(timeout: 60)
        #expect(quit.status == 0, "the service quits once nothing is queued: \(quit)")
        #expect(server.messages.count == 1, "sent once")
    }

    /// **Retry now** of the outbox entry `id`, as the notification's button activates it.
    func retryNow(_ id: String) throws -> RunResult {
        try bus.gdbus(["--dest", Self.serviceName, "--object-path", "/io/github/mailto_route/MailtoRoute",
                   "--method", "org.freedesktop.Application.ActivateAction", "retry-outbox", "[<'\(id)'>]", "{}"],
                  environment: environment)
    }
}
