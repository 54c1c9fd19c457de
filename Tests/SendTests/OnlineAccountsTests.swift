import Foundation
import Testing
import TestSupport

/// GNOME Online Accounts' mail accounts, end to end: the stand-in of goa-daemon
/// (Servers/goa-standin.py) on a private session bus, read back by Debian's own libgoa so
/// that it is known to answer as goa-daemon does; real aiosmtpd servers with STARTTLS and
/// the test CA (trusted through SSL_CERT_FILE: an online account has no file to name it
/// in), which log each SASL exchange; Python's email package reads what arrived. No
/// mailto-route configuration at all.
@Suite struct OnlineAccountsTests {
    let sandbox: Sandbox
    let bus: PrivateSessionBus
    let certificates: TestCertificates

    init() throws {
        sandbox = try Sandbox()
        bus = try PrivateSessionBus()
        certificates = try TestCertificates.shared.get()
    }

    var environment: [String: String] {
        var environment = sandbox.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["SSL_CERT_FILE"] = certificates.caFile
        return environment
    }

    /// A Google account (OAuth2) on `port` over STARTTLS, and an IMAP and SMTP account
    /// whose login is not its address.
    static func accounts(googlePort: Int, token: String, passwordPort: Int? = nil, password: String = "") -> String {
        var accounts = """
            "account_1700000000_0": {
              "ProviderType": "google", "Identity": "jane@gmail.com",
              "Mail": {"SmtpHost": "127.0.0.1:\(googlePort)", "SmtpUseSsl": false, "SmtpUseTls": true},
              "AccessToken": "\(token)", "ExpiresIn": 3599
            }
            """
        if let passwordPort {
            accounts += """
                ,
                "account_1700000001_0": {
                  "ProviderType": "imap_smtp", "Identity": "jane.doe@example.net",
                  "Mail": {"EmailAddress": "jane.doe@example.net", "Name": "Jane Doe",
                           "ImapHost": "127.0.0.1:1", "ImapUserName": "jdoe-login", "ImapUseTls": true,
                           "SmtpHost": "127.0.0.1:\(passwordPort)", "SmtpUseTls": true, "SmtpUseAuth": true,
                           "SmtpUserName": "jdoe-login", "SmtpAuthPlain": true},
                  "Passwords": {"smtp-password": "\(password)", "imap-password": "\(password)"}
                }
                """
        }
        return "{\(accounts)}"
    }

    /// Runs mailto-route with `arguments`, looking through every argv for `secrets` while
    /// it runs (the SMTP test servers', the other side, aside).
    func runWatchingArgv(_ arguments: [String], secrets: [String]) throws -> (result: (status: Int32, stdout: String, stderr: String), leaks: [String]) {
        try TestSupport.runWatchingArgv(arguments, environment: environment, secrets: secrets, otherSide: ["smtp_server.py"])
    }

    /// Every file under the sandbox that holds one of `secrets`.
    func filesHolding(_ secrets: [String]) -> [String] {
        TestSupport.filesHolding(secrets, under: sandbox.root)
    }

    /// Each address delivers once to its own server, signed in with exactly GOA's token
    /// (XOAUTH2 or OAUTHBEARER) and password; neither appears in any file, output or argv.
    @Test func eachOnlineAccountSendsThroughItsOwnServerWithGOAsCredentials() throws {
        let token = "ya29.\(UUID().uuidString)"
        let password = "pw-\(UUID().uuidString)"
        let google = try SMTPTestServer(.starttls, certificate: certificates.server, oauthTokens: [("jane@gmail.com", token)],
                                        mechanisms: "XOAUTH2 OAUTHBEARER PLAIN LOGIN")
        let imap = try SMTPTestServer(.starttls, certificate: certificates.server, auth: ("jdoe-login", password))
        let standIn = try GOAStandIn(on: bus, accounts: Self.accounts(googlePort: google.port, token: token,
                                                                       passwordPort: imap.port, password: password))
        // Debian's libgoa reads the stand-in as it reads goa-daemon: the same accounts,
        // properties, token and password.
        let libgoa = try standIn.libgoaView()
        #expect((libgoa["compare"] as? [String: Any])?["ok"] as? Bool == true, "\(libgoa)")
        let callsBefore = standIn.calls.count

        let check = try mailtoRoute(["check", "--json", "--offline"], in: sandbox, extraEnvironment: environment)
        let listed = try #require(try jsonObject(check.stdout)["accounts"] as? [[String: Any]], "\(check)")
        #expect(listed.map { $0["name"] as? String } == ["goa:account_1700000000_0", "goa:account_1700000001_0"])
        #expect(listed.map { $0["origin"] as? String } == ["GNOME Online Accounts (Google)", "GNOME Online Accounts (IMAP and SMTP)"])
        #expect(listed.map { ($0["credentials"] as? [String: Any])?["state"] as? String } == ["available", "available"], "\(listed)")
        #expect(listed.first?["default"] as? Bool == true)

        let viaGoogle = try runWatchingArgv(["send", "--from", "jane@gmail.com", "--to", "joe@example.com", "--subject", "Via Google",
                                             "--body", "x", "--json"], secrets: [token, password])
        #expect(viaGoogle.result.status == 0, "\(viaGoogle.result)")
        let report = try jsonObject(viaGoogle.result.stdout)
        #expect(report["account"] as? String == "goa:account_1700000000_0")
        #expect(report["server"] as? String == "127.0.0.1:\(google.port)")
        let viaIMAP = try runWatchingArgv(["send", "--from", "jane.doe@example.net", "--to", "joe@example.com",
                                           "--subject", "Via IMAP and SMTP", "--body", "y", "--json"], secrets: [token, password])
        #expect(viaIMAP.result.status == 0, "\(viaIMAP.result)")
        #expect(try jsonObject(viaIMAP.result.stdout)["account"] as? String == "goa:account_1700000001_0")

        // Each server got its own message, once, over TLS, signed in with GOA's very token
        // or password.
        #expect(google.messages.count == 1 && imap.messages.count == 1)
        let googleMessage = try #require(google.messages.first)
        let googleEnvelope = try google.envelope(of: googleMessage)
        #expect(googleEnvelope["mail_from"] as? String == "jane@gmail.com")
        #expect(googleEnvelope["tls"] as? Bool == true)
        #expect(["XOAUTH2", "OAUTHBEARER"].contains(googleEnvelope["mechanism"] as? String ?? ""), "\(googleEnvelope)")
        let exchanges = google.authLog
        #expect(exchanges.count == 1, "\(exchanges)")
        #expect(exchanges.first?["token"] as? String == token)
        #expect(exchanges.first?["user"] as? String == "jane@gmail.com")
        #expect(exchanges.first?["success"] as? Bool == true)
        #expect((try pythonView(of: googleMessage)["headers"] as? [String: Any])?["Subject"] as? String == "Via Google")

        let imapMessage = try #require(imap.messages.first)
        #expect(try imap.envelope(of: imapMessage)["mail_from"] as? String == "jane.doe@example.net")
        #expect(imap.authLog.map { $0["user"] as? String } == ["jdoe-login"])
        #expect(imap.authLog.first?["success"] as? Bool == true)
        let headers = try #require(try pythonView(of: imapMessage)["headers"] as? [String: Any])
        #expect(headers["Subject"] as? String == "Via IMAP and SMTP")
        #expect(headers["From"] as? String == "Jane Doe <jane.doe@example.net>")

        // GOA was asked at the attempt: EnsureCredentials then GetAccessToken for the
        // OAuth2 account, GetPassword for the other (check asked once before, too).
        let ours = Array(standIn.calls.dropFirst(callsBefore))
        let names = ours.map { "\($0["method"] as? String ?? "") \($0["account"] as? String ?? "")" }
        #expect(names.filter { $0.hasSuffix("account_1700000000_0") }.suffix(2)
            == ["EnsureCredentials account_1700000000_0", "GetAccessToken account_1700000000_0"], "\(names)")
        #expect(ours.last { $0["method"] as? String == "GetPassword" }?["id"] as? String == "smtp-password")

        // Rule 6: neither the token nor the password is anywhere of ours.
        #expect(viaGoogle.leaks.isEmpty && viaIMAP.leaks.isEmpty, "\(viaGoogle.leaks) \(viaIMAP.leaks)")
        for output in [viaGoogle.result.stdout, viaGoogle.result.stderr, viaIMAP.result.stdout, viaIMAP.result.stderr,
                       check.stdout, check.stderr] {
            #expect(!output.contains(token) && !output.contains(password))
        }
        #expect(filesHolding([token, password]).isEmpty, "\(filesHolding([token, password]))")
    }

    /// A server that offers no bearer mechanism never gets the token with another, and
    /// the user name never goes with an empty password (libcurl's fallback to PLAIN, which
    /// CURLOPT_LOGIN_OPTIONS pins away).
    @Test func aTokenIsNeverSentWithAnotherMechanism() throws {
        let token = "ya29.\(UUID().uuidString)"
        let server = try SMTPTestServer(.starttls, certificate: certificates.server, auth: ("jane@gmail.com", "unused"),
                                        mechanisms: "PLAIN LOGIN")
        let standIn = try GOAStandIn(on: bus, accounts: Self.accounts(googlePort: server.port, token: token))
        let sent = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x", "--json"], in: sandbox,
                                   extraEnvironment: environment)
        #expect(sent.status == 78, "\(sent)")
        #expect(try jsonObject(sent.stdout)["error"].flatMap { ($0 as? [String: Any])?["message"] as? String }?
            .contains("offers no XOAUTH2 or OAUTHBEARER") == true, "\(sent)")
        #expect(server.authLog.isEmpty, "\(server.authLog)")
        #expect(server.messages.isEmpty)
        #expect(standIn.callNames.contains("GetAccessToken account_1700000000_0"))
    }

    /// The server refuses the token: the message is queued, one "Sign in again" (a
    /// notification: no desktop service here), and nothing tries that token again; a new
    /// token from GOA (the person signed in again) sends it.
    @Test func aRefusedTokenIsOneSignInAgainAndNoSecondAttempt() throws {
        let refused = "ya29.refused-\(UUID().uuidString)"
        let renewed = "ya29.renewed-\(UUID().uuidString)"
        // XOAUTH2 alone: Gmail's error challenge, which libcurl answers by hanging up.
        let server = try SMTPTestServer(.starttls, certificate: certificates.server, oauthTokens: [("jane@gmail.com", renewed)],
                                        mechanisms: "XOAUTH2")
        let standIn = try GOAStandIn(on: bus, accounts: Self.accounts(googlePort: server.port, token: refused))
        let notifications = try ScriptedNotificationServer(on: bus)

        let first = try mailtoRoute(["send", "--to", "joe@example.com", "--subject", "First", "--body", "x", "--json"], in: sandbox,
                                    extraEnvironment: environment)
        #expect(first.status == 75, "\(first)")
        let report = try jsonObject(first.stdout)
        #expect(report["result"] as? String == "queued")
        #expect(report["account"] as? String == "goa:account_1700000000_0")
        #expect(((report["error"] as? [String: Any])?["message"] as? String)?.contains("sign in again") == true, "\(report)")
        #expect(server.authLog.map { $0["token"] as? String } == [refused])

        // Another message through the same account, with its quick flush: the token GOA
        // still hands out is the refused one, and it does not go to the server again.
        let second = try mailtoRoute(["send", "--to", "ann@example.com", "--subject", "Second", "--body", "y"], in: sandbox,
                                     extraEnvironment: environment)
        #expect(second.status == 75, "\(second)")
        #expect(server.authLog.count == 1, "no second attempt with the refused token: \(server.authLog)")
        let signIns = notifications.notifications.filter { $0.summary.hasSuffix("Sign in again to jane@gmail.com") }
        #expect(signIns.count == 1, "\(notifications.calls.map(\.summary))")
        #expect(signIns.first?.body.contains("gnome-control-center online-accounts account_1700000000_0") == true)
        #expect(filesHolding([refused, renewed]).isEmpty)

        // The person signs in again: GOA hands out another token, and both messages go.
        try standIn.reload(accounts: Self.accounts(googlePort: server.port, token: renewed))
        let flush = try mailtoRoute(["outbox", "flush", "--json"], in: sandbox, extraEnvironment: environment)
        #expect(flush.status == 0, "\(flush)")
        #expect(server.messages.count == 2)
        #expect(server.authLog.compactMap { $0["token"] as? String }.suffix(1) == [renewed])
        #expect(notifications.notifications.filter { $0.summary.contains("Sign in again") }.count == 1)
    }

    /// No GOA on the bus: nothing changes (no account, and a link goes where it went).
    @Test func withoutGOAOnTheBusThereIsNoAccount() throws {
        let check = try mailtoRoute(["check", "--json", "--offline"], in: sandbox, extraEnvironment: environment)
        #expect(try jsonObject(check.stdout)["accounts"] as? [Any] != nil)
        #expect((try jsonObject(check.stdout)["accounts"] as? [Any])?.isEmpty == true, "\(check)")
        let sent = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox, extraEnvironment: environment)
        #expect(sent.status == 3, "saved as a draft, as before: \(sent)")
    }
}
