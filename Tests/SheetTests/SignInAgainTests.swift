import Foundation
import Testing
import TestSupport

/// "Sign in again" for an account of GNOME Online Accounts whose token the server refused:
/// the run that found out asks the desktop service (D-Bus activated on a private bus, no
/// display), which shows the notification with the button, so that the button still
/// reaches a program when it is pressed; pressing it opens GNOME Settings' Online
/// Accounts on that account (a recording `gnome-control-center` here).
@Suite struct SignInAgainTests {
    @Test func theServiceShowsSignInAgainAndItsButtonOpensOnlineAccounts() throws {
        let sandbox = try Sandbox()
        let certificates = try TestCertificates.shared.get()
        var environment = sandbox.environment(["MAILTO_ROUTE_SERVICE_IDLE": "2", "SSL_CERT_FILE": certificates.caFile])
        environment["MAILTO_ROUTE_HANDOFF"] = nil
        let register = try run(mailtoRouteBinary, ["register"], environment: environment)
        #expect(register.status == 0, "\(register)")
        try sandbox.installRecorder("gnome-control-center")
        let bus = try PrivateSessionBus(serviceDirectory: sandbox.dataHome.appendingPathComponent("dbus-1/services"),
                                        environment: environment, unset: ["DISPLAY", "WAYLAND_DISPLAY"])
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let refused = "ya29.refused-\(UUID().uuidString)"
        let server = try SMTPTestServer(.starttls, certificate: certificates.server, oauthTokens: [("jane@gmail.com", "ya29.other")])
        let standIn = try GOAStandIn(on: bus, accounts: """
            {"account_1700000000_0": {"ProviderType": "google", "Identity": "jane@gmail.com",
              "Mail": {"SmtpHost": "127.0.0.1:\(server.port)", "SmtpUseSsl": false, "SmtpUseTls": true},
              "AccessToken": "\(refused)"}}
            """)
        let notifications = try ScriptedNotificationServer(on: bus, answers: ["button:Sign in again"], delay: 0.5)

        let sent = try run(mailtoRouteBinary, ["send", "--to", "joe@example.com", "--body", "x", "--json"],
                           environment: environment, timeout: 40)
        #expect(sent.status == 75, "\(sent)")
        let argv = sandbox.recordedArgv("gnome-control-center", timeout: 30)
        #expect(argv == ["online-accounts", "account_1700000000_0"], "\(notifications.calls.map { ($0.summary, $0.actions) })")
        let shown = notifications.notifications.filter { $0.summary == "Sign in again to jane@gmail.com" }
        #expect(shown.count == 1, "\(notifications.calls.map(\.summary))")
        #expect(shown.first?.actions.contains("Sign in again") == true, "\(shown.map(\.actions))")
        #expect(server.authLog.count == 1)
        #expect(standIn.callNames.contains("GetAccessToken account_1700000000_0"))
    }
}
