import Foundation
import Testing
import TestSupport

/// A webmail handoff that carries everything (issue 34): `send --handoff --attach FILE` with
/// `handler=webmail:gmail` stores the whole message in the Drafts of the account's own
/// mailbox on a real Dovecot (Resources/imap_server.py: TLS with the test CA, a `Drafts`
/// mailbox marked `\Drafts`, a passwd-file, and XOAUTH2 through Dovecot's oauth2 passdb and a
/// loopback introspection endpoint), and a recording browser (`x-scheme-handler/https`) gets
/// the drafts view of that account. Python's `email` judges the file Dovecot stored.
@Suite struct IMAPDraftsTests {
    let sandbox: Sandbox
    let certificates: TestCertificates
    /// The file attached: bytes of every value, so that any change to one shows.
    let attachment: URL
    let attachmentBytes: [UInt8]

    init() throws {
        sandbox = try Sandbox()
        certificates = try TestCertificates.shared.get()
        try sandbox.installHandler("browser.desktop", name: "Browser", program: "browser",
                                   mimeTypes: "x-scheme-handler/https;x-scheme-handler/http;")
        // Each URL of each launch, one a line: how many the browser got, not only the last.
        try sandbox.installScript("browser", "printf '%s\\n' \"$@\" >> '\(sandbox.root.path)/browser-urls'")
        attachmentBytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 / 7) }
        attachment = try sandbox.write(Data(attachmentBytes), to: "home/figures.bin")
    }

    /// A config account whose IMAP server is `port` with `security`; its password in the
    /// Secret Service under `service=imap`; `policy=` for clicked links.
    func writeConfigAccount(imapPort: Int, security: String, policy: String = "ask") throws {
        try sandbox.write("""
            [account]
            from=Jane Doe <jane@example.org>
            host=127.0.0.1
            port=1
            user=jane@example.org
            ca-file=\(certificates.caFile)
            imap-host=127.0.0.1
            imap-port=\(imapPort)
            imap-security=\(security)

            [route]
            handler=webmail:gmail
            policy=\(policy)

            """, to: "home/.config/mailto-route/config")
    }

    static let sendWords = ["send", "--handoff", "--to", "Bob Baker <bob@example.com>", "--cc", "carol@example.org",
                            "--subject", "Quarterly figures – Q3", "--body", "Here they are.\n"]

    /// Runs mailto-route, looking through every argv for `secrets` while it runs (the test
    /// servers', the other side, aside).
    func runWatchingArgv(_ arguments: [String], environment: [String: String], secrets: [String])
        throws -> (result: (status: Int32, stdout: String, stderr: String), leaks: [String]) {
        try TestSupport.runWatchingArgv(arguments, environment: environment, secrets: secrets,
                                        otherSide: ["imap_server.py", "secret_service.py"])
    }

    /// Every URL the recording browser was started with so far, once it has been started
    /// `launches` times (a run that launches a program has it on record when it ends).
    func browserURLs(launches: Int = 1) -> [String] {
        let path = sandbox.root.appendingPathComponent("browser-urls").path
        func urls() -> [String] {
            (FileManager.default.contents(atPath: path)).map { String(decoding: $0, as: UTF8.self).split(separator: "\n").map(String.init) } ?? []
        }
        _ = try? waitUntil("the browser was started \(launches) times") { urls().count >= launches }
        return urls()
    }

    /// Every file under the sandbox that holds one of `secrets`.
    func filesHolding(_ secrets: [String]) -> [String] {
        TestSupport.filesHolding(secrets, under: sandbox.root)
    }

    /// The one draft Dovecot stored: flagged `\Draft` (Maildir's `D`), every field and the
    /// attachment byte for byte as Python's `email` reads them. Its header block is printed,
    /// as Dovecot stored it.
    func expectOneDraft(in dovecot: DovecotIMAPServer, from: String) throws {
        let drafts = dovecot.drafts
        #expect(drafts.count == 1, "\(drafts)\n\(dovecot.log)")
        #expect(dovecot.inbox.isEmpty)
        let draft = try #require(drafts.first)
        let flags = draft.lastPathComponent.split(separator: ":").last.map { $0.split(separator: ",").last ?? "" } ?? ""
        #expect(flags.contains("D"), "\(draft.lastPathComponent)")
        let view = try pythonView(of: draft)
        let headers = try #require(view["headers"] as? [String: String])
        #expect(headers["From"] == from)
        #expect(headers["To"] == "Bob Baker <bob@example.com>")
        #expect(headers["Cc"] == "carol@example.org")
        #expect(headers["Subject"] == "Quarterly figures – Q3")
        #expect(headers["Message-ID"] != nil && headers["Date"] != nil)
        #expect((view["defects"] as? [String])?.isEmpty == true, "\(view)")
        let parts = try #require(view["parts"] as? [[String: Any]])
        #expect(parts.first { $0["type"] as? String == "text/plain" }?["text"] as? String == "Here they are.\n")
        let file = try #require(parts.first { $0["filename"] as? String == "figures.bin" }, "\(parts)")
        #expect(file["size"] as? Int == attachmentBytes.count)
        #expect(file["sha256"] as? String == sha256(Data(attachmentBytes)))
        let stored = try String(contentsOf: draft, encoding: .utf8)
        print("The draft's header block as Dovecot stored it (\(draft.lastPathComponent)):\n"
              + (stored.components(separatedBy: "\n\n").first ?? stored))
    }

    /// Over implicit TLS and over STARTTLS, the password from the keyring (`service=imap`).
    @Test(arguments: ["tls", "starttls"])
    func aConfigAccountsDraftWaitsInItsDovecotDrafts(security: String) throws {
        let password = "pw-\(UUID().uuidString)"
        let dovecot = try DovecotIMAPServer(certificate: certificates.server, user: "jane@example.org", password: password)
        let keyring = try FakeSecretService(items: [(["host": "127.0.0.1", "service": "imap", "user": "jane@example.org"], password)])
        try writeConfigAccount(imapPort: security == "tls" ? dovecot.imapsPort : dovecot.imapPort, security: security)
        var environment = sandbox.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = keyring.address
        // check says where a webmail handoff's draft would go.
        let check = try mailtoRoute(["check", "--json", "--offline"], in: sandbox, extraEnvironment: environment)
        let imap = (try jsonObject(check.stdout)["account"] as? [String: Any])?["imap"] as? [String: Any]
        #expect(imap?["server"] as? String == "127.0.0.1:\(security == "tls" ? dovecot.imapsPort : dovecot.imapPort)", "\(check)")
        #expect(imap?["security"] as? String == security && imap?["user"] as? String == "jane@example.org")
        let run = try runWatchingArgv(Self.sendWords + ["--attach", attachment.path, "--json"], environment: environment,
                                      secrets: [password])
        #expect(run.result.status == 0, "\(run.result)\n\(dovecot.log)")
        let report = try jsonObject(run.result.stdout)
        #expect(report["result"] as? String == "handedOff")
        #expect((report["handler"] as? [String: Any])?["id"] as? String == "webmail:gmail")
        #expect(report["mailbox"] as? String == "Drafts")
        #expect(report["account"] as? String == "default")
        #expect(report["server"] as? String == "127.0.0.1:\(security == "tls" ? dovecot.imapsPort : dovecot.imapPort)")
        #expect(report["warnings"] as? [String] == [], "\(report)")
        #expect(browserURLs() == ["https://mail.google.com/mail/?authuser=jane%40example.org#drafts"])
        try expectOneDraft(in: dovecot, from: "Jane Doe <jane@example.org>")
        // Kept in the mailbox: no local draft besides; the outcome log says where.
        #expect(sandbox.drafts.isEmpty)
        let log = try mailtoRoute(["log", "--json"], in: sandbox)
        let line = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]]).last
        #expect(line?["result"] as? String == "handedOff" && line?["mailbox"] as? String == "Drafts", "\(log)")
        #expect(line?["handler"] as? String == "webmail:gmail" && line?["account"] as? String == "default")
        #expect(run.leaks.isEmpty, "\(run.leaks)")
        #expect(!run.result.stdout.contains(password) && !run.result.stderr.contains(password))
        #expect(filesHolding([password]).isEmpty)
    }

    /// LibreOffice's File ▸ Send ▸ Email Document: its real senddoc, in LibreOffice's app
    /// scope, runs Debian's xdg-email and its hook; the document, a local program's file,
    /// waits whole in the account's Drafts (`policy=handoff`: a link is handed off).
    @Test func libreOfficesDocumentWaitsInTheDrafts() throws {
        let password = "pw-\(UUID().uuidString)"
        let dovecot = try DovecotIMAPServer(certificate: certificates.server, user: "jane@example.org", password: password)
        let keyring = try FakeSecretService(items: [(["host": "127.0.0.1", "service": "imap", "user": "jane@example.org"], password)])
        try writeConfigAccount(imapPort: dovecot.imapsPort, security: "tls", policy: "handoff")
        try sandbox.installXDGEmailHook()
        let document = try sandbox.write(Data(attachmentBytes), to: "lu1234.tmp/Budget 100%, final.odt")
        let scope = try AppScope(unit: #"app-gnome-libreoffice\x2dwriter-\#(getpid()).scope"#)
        let senddoc = ["/usr/lib/libreoffice/program/senddoc", "--mailclient", "sensible-lomua", "--to", "bob@example.com",
                       "--subject", "Budget 100%, final.odt", "--attach", document.path]
        let result = try run("/usr/bin/setsid", ["-w"] + scope.wrap(senddoc),
                             environment: sandbox.environment(["DBUS_SESSION_BUS_ADDRESS": keyring.address]), timeout: 30)
        #expect(result.status == 0, "\(result)")
        #expect(browserURLs() == ["https://mail.google.com/mail/?authuser=jane%40example.org#drafts"], "\(result)")
        #expect(dovecot.drafts.count == 1, "\(dovecot.log)")
        let draft = try #require(dovecot.drafts.first)
        #expect(draft.lastPathComponent.hasSuffix(",D") || draft.lastPathComponent.contains(":2,D"))
        let view = try pythonView(of: draft)
        #expect((view["headers"] as? [String: String])?["Subject"] == "Budget 100%, final.odt")
        let parts = try #require(view["parts"] as? [[String: Any]])
        let file = try #require(parts.first { $0["filename"] as? String == "Budget 100%, final.odt" }, "\(parts)")
        #expect(file["sha256"] as? String == sha256(Data(attachmentBytes)))
        #expect(sandbox.drafts.isEmpty)
    }

    /// A webmail named by a template has its drafts view from `webmail-drafts=`, `{account}`
    /// the account's address; one that is no URL of that kind is said once, and the compose
    /// page opens as before.
    @Test(arguments: [("https://mail.example.org/drafts?user={account}", true), ("https://mail.example.org/{subject}", false)])
    func aTemplatesDraftsViewIsItsWebmailDraftsKey(drafts: String, valid: Bool) throws {
        let dovecot = try DovecotIMAPServer(certificate: certificates.server, user: "jane@example.org", password: "pw")
        let keyring = try FakeSecretService(items: [(["host": "127.0.0.1", "service": "imap", "user": "jane@example.org"], "pw")])
        try writeConfigAccount(imapPort: dovecot.imapsPort, security: "tls")
        let config = sandbox.root.appendingPathComponent("home/.config/mailto-route/config")
        let text = try String(contentsOf: config, encoding: .utf8)
            .replacingOccurrences(of: "handler=webmail:gmail", with: "handler=webmail:https://mail.example.org/compose?to={to}\nwebmail-drafts=\(drafts)")
        try sandbox.write(text, to: "home/.config/mailto-route/config")
        let result = try mailtoRoute(Self.sendWords + ["--attach", attachment.path], in: sandbox,
                                     extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": keyring.address])
        #expect(result.status == 0, "\(result)")
        if valid {
            #expect(browserURLs() == ["https://mail.example.org/drafts?user=jane%40example.org"], "\(result)")
            #expect(dovecot.drafts.count == 1)
        } else {
            #expect(result.stderr.components(separatedBy: "warning: not stored in the Drafts of jane@example.org: webmail-drafts=").count == 2,
                    "\(result)")
            #expect(browserURLs().first?.hasPrefix("https://mail.example.org/compose?to=") == true)
            #expect(dovecot.drafts.isEmpty && sandbox.drafts.count == 1)
        }
    }

    /// An account set up by mailto-route keeps its password in the keyring under its SMTP
    /// server only: IMAP logs in with that one.
    @Test func theKeyringsSMTPPasswordServesIMAPWhenNoneIsStoredForIt() throws {
        let password = "pw-\(UUID().uuidString)"
        let dovecot = try DovecotIMAPServer(certificate: certificates.server, user: "jane@example.org", password: password)
        let keyring = try FakeSecretService(items: [(["host": "127.0.0.1", "service": "smtp", "user": "jane@example.org"], password)])
        try writeConfigAccount(imapPort: dovecot.imapsPort, security: "tls")
        let result = try mailtoRoute(Self.sendWords + ["--attach", attachment.path, "--json"], in: sandbox,
                                     extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": keyring.address])
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["mailbox"] as? String == "Drafts", "\(result)")
        #expect(dovecot.drafts.count == 1)
    }

    /// A password the server refuses: nothing stored, the compose page opened as before,
    /// the attachment kept in a local draft, and the refusal said once.
    @Test func aRefusedPasswordStoresNothingAndLosesNothing() throws {
        let dovecot = try DovecotIMAPServer(certificate: certificates.server, user: "jane@example.org", password: "the-right-one")
        let keyring = try FakeSecretService(items: [(["host": "127.0.0.1", "service": "imap", "user": "jane@example.org"], "a-wrong-one")])
        try writeConfigAccount(imapPort: dovecot.imapsPort, security: "tls")
        let result = try mailtoRoute(Self.sendWords + ["--attach", attachment.path], in: sandbox,
                                     extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": keyring.address])
        #expect(result.status == 0, "\(result)")
        #expect(dovecot.drafts.isEmpty && dovecot.inbox.isEmpty)
        let refusal = "warning: not stored in the Drafts of jane@example.org: 127.0.0.1:\(dovecot.imapsPort) refused the user name or password"
        #expect(result.stderr.components(separatedBy: refusal).count == 2, "\(result)")
        #expect(result.stderr.contains("warning: attachment figures.bin not carried"), "\(result)")
        let urls = browserURLs()
        #expect(urls.count == 1 && urls[0].hasPrefix("https://mail.google.com/mail/?extsrc=mailto&url="), "\(urls)")
        #expect(sandbox.drafts.count == 1)
        let kept = try pythonView(of: try #require(sandbox.drafts.first))
        let parts = try #require(kept["parts"] as? [[String: Any]])
        #expect(parts.first { $0["filename"] as? String == "figures.bin" }?["sha256"] as? String == sha256(Data(attachmentBytes)))
    }

    /// No IMAP server listening: today's handoff, its "not carried" line, the local draft.
    @Test func anUnreachableServerLeavesTodaysHandoffAndALocalDraft() throws {
        let (closed, descriptor) = try unlistenedPort()
        defer { close(descriptor) }
        try writeConfigAccount(imapPort: closed, security: "tls")
        let keyring = try FakeSecretService(items: [(["host": "127.0.0.1", "service": "imap", "user": "jane@example.org"], "pw")])
        let result = try mailtoRoute(Self.sendWords + ["--attach", attachment.path], in: sandbox,
                                     extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": keyring.address])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("warning: not stored in the Drafts of jane@example.org: "), "\(result)")
        #expect(result.stderr.contains("warning: attachment figures.bin not carried"), "\(result)")
        let draft = try #require(sandbox.drafts.first)
        #expect(result.stderr.contains("is saved as \(draft.path)"), "\(result)")
        #expect(browserURLs().count == 1)
    }

    // MARK: - GNOME Online Accounts

    /// A Google account of the GOA stand-in whose IMAP server is Dovecot's implicit TLS port.
    static func googleAccount(imapPort: Int, token: String) -> String {
        """
        {"account_1700000000_0": {
          "ProviderType": "google", "Identity": "jane@gmail.com",
          "Mail": {"ImapHost": "127.0.0.1:\(imapPort)", "SmtpHost": "127.0.0.1:1"},
          "AccessToken": "\(token)", "ExpiresIn": 3599
        }}
        """
    }

    /// The sandbox's environment with the private bus, the test CA trusted as the system's
    /// (an online account has no file to name it in), and `handler=webmail:gmail`.
    func onlineEnvironment(_ bus: PrivateSessionBus) throws -> [String: String] {
        try sandbox.write("[route]\nhandler=webmail:gmail\n", to: "home/.config/mailto-route/config")
        var environment = sandbox.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["SSL_CERT_FILE"] = certificates.caFile
        return environment
    }

    /// Signed in with GOA's own token (XOAUTH2, checked by Dovecot's oauth2 passdb), the
    /// draft waits in the account's Drafts and Gmail opens that account's drafts view.
    @Test func aGoogleOnlineAccountsDraftWaitsInItsDrafts() throws {
        let token = "ya29.\(UUID().uuidString)"
        let bus = try PrivateSessionBus()
        let dovecot = try DovecotIMAPServer(certificate: certificates.server, user: "jane@gmail.com", token: token)
        let standIn = try GOAStandIn(on: bus, accounts: Self.googleAccount(imapPort: dovecot.imapsPort, token: token))
        let run = try runWatchingArgv(Self.sendWords + ["--attach", attachment.path, "--json"],
                                      environment: try onlineEnvironment(bus), secrets: [token])
        #expect(run.result.status == 0, "\(run.result)\n\(dovecot.log)")
        let report = try jsonObject(run.result.stdout)
        #expect(report["result"] as? String == "handedOff")
        #expect(report["mailbox"] as? String == "Drafts", "\(run.result)")
        #expect(report["account"] as? String == "goa:account_1700000000_0")
        #expect(report["server"] as? String == "127.0.0.1:\(dovecot.imapsPort)")
        #expect(dovecot.introspections == ["introspection: active=True"])
        #expect(dovecot.log.contains("method=XOAUTH2"), "\(dovecot.log)")
        #expect(browserURLs() == ["https://mail.google.com/mail/?authuser=jane%40gmail.com#drafts"])
        try expectOneDraft(in: dovecot, from: "jane@gmail.com")
        #expect(sandbox.drafts.isEmpty)
        #expect(run.leaks.isEmpty, "\(run.leaks)")
        #expect(!run.result.stdout.contains(token) && !run.result.stderr.contains(token))
        #expect(filesHolding([token]).isEmpty)
        #expect(standIn.callNames == ["EnsureCredentials account_1700000000_0", "GetAccessToken account_1700000000_0"])
    }

    /// A token Dovecot refuses: nothing stored, the message kept in a local draft, one
    /// **Sign in again**; the next message does not offer the same token again.
    @Test func aRefusedTokenIsOneSignInAgainAndNotALoop() throws {
        let refused = "ya29.refused-\(UUID().uuidString)"
        let bus = try PrivateSessionBus()
        let dovecot = try DovecotIMAPServer(certificate: certificates.server, user: "jane@gmail.com", token: "ya29.another")
        let standIn = try GOAStandIn(on: bus, accounts: Self.googleAccount(imapPort: dovecot.imapsPort, token: refused))
        let notifications = try ScriptedNotificationServer(on: bus)
        let environment = try onlineEnvironment(bus)
        let first = try mailtoRoute(Self.sendWords + ["--attach", attachment.path], in: sandbox, extraEnvironment: environment)
        #expect(first.status == 0, "\(first)")
        #expect(first.stderr.components(separatedBy: "warning: not stored in the Drafts of jane@gmail.com").count == 2, "\(first)")
        #expect(dovecot.drafts.isEmpty && dovecot.inbox.isEmpty)
        #expect(dovecot.introspections == ["introspection: active=False"])
        #expect(sandbox.drafts.count == 1)

        let second = try mailtoRoute(Self.sendWords + ["--attach", attachment.path], in: sandbox, extraEnvironment: environment)
        #expect(second.status == 0, "\(second)")
        #expect(second.stderr.contains("not tried again"), "\(second)")
        #expect(dovecot.introspections.count == 1, "the refused token went to the server again")
        let signIns = notifications.notifications.filter { $0.summary.hasSuffix("Sign in again to jane@gmail.com") }
        #expect(signIns.count == 1, "\(notifications.calls.map(\.summary))")
        #expect(browserURLs(launches: 2).count == 2)
        #expect(filesHolding([refused]).isEmpty)
        #expect(standIn.callNames.filter { $0.hasPrefix("GetAccessToken") }.count == 2)
    }

    /// An IMAP and SMTP account of GOA: its IMAP login and the IMAP password GOA keeps, over
    /// STARTTLS (`ImapUseTls`), on Dovecot.
    @Test func anIMAPAndSMTPOnlineAccountsDraftWaitsInItsDrafts() throws {
        let password = "pw-\(UUID().uuidString)"
        let bus = try PrivateSessionBus()
        let dovecot = try DovecotIMAPServer(certificate: certificates.server, user: "jdoe-login", password: password)
        let standIn = try GOAStandIn(on: bus, accounts: """
            {"account_1700000001_0": {
              "ProviderType": "imap_smtp", "Identity": "jane.doe@example.net",
              "Mail": {"EmailAddress": "jane.doe@example.net", "Name": "Jane Doe",
                       "ImapHost": "127.0.0.1:\(dovecot.imapPort)", "ImapUserName": "jdoe-login", "ImapUseTls": true,
                       "SmtpHost": "127.0.0.1:1", "SmtpUseTls": true, "SmtpUseAuth": true,
                       "SmtpUserName": "jdoe-login", "SmtpAuthPlain": true},
              "Passwords": {"smtp-password": "not-this-one", "imap-password": "\(password)"}
            }}
            """)
        let run = try runWatchingArgv(Self.sendWords + ["--attach", attachment.path, "--json"],
                                      environment: try onlineEnvironment(bus), secrets: [password])
        #expect(run.result.status == 0, "\(run.result)\n\(dovecot.log)")
        let report = try jsonObject(run.result.stdout)
        #expect(report["mailbox"] as? String == "Drafts", "\(run.result)")
        #expect(report["server"] as? String == "127.0.0.1:\(dovecot.imapPort)")
        #expect(browserURLs() == ["https://mail.google.com/mail/?authuser=jane.doe%40example.net#drafts"])
        try expectOneDraft(in: dovecot, from: "Jane Doe <jane.doe@example.net>")
        #expect(run.leaks.isEmpty && filesHolding([password]).isEmpty)
        #expect(!run.result.stdout.contains(password) && !run.result.stderr.contains(password))
        #expect(standIn.callNames == ["GetPassword account_1700000001_0"])
    }
}
