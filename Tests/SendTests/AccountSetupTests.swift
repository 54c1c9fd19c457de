import Foundation
import Testing
import TestSupport

/// `mailto-route account add`, end to end: the submission server found on a mail domain of
/// the test's own (`MailDomain`: SRV records from a DNS server on loopback through
/// resolv_wrapper, autoconfig over HTTPS with the test CA, its names in /etc/hosts of a
/// mount namespace), tested live against an aiosmtpd server, the password kept in a real
/// gnome-keyring-daemon (`TestKeyring`), the account in the config file; then `send`.
@Suite struct AccountSetupTests {
    private struct World {
        let domain: MailDomain
        let keyring: TestKeyring
        let sandbox: Sandbox

        var environment: [String: String] {
            var environment = sandbox.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = keyring.address
            return environment
        }

        var configPath: String { sandbox.configHome.appendingPathComponent("mailto-route/config").path }
        var config: String { (try? String(contentsOfFile: configPath, encoding: .utf8)) ?? "" }

        /// `account add ARGUMENTS --password-stdin`, the password on standard input; killed
        /// after `timeout` seconds.
        func accountAdd(_ arguments: [String], password: String, timeout: Double = patience) throws -> RunResult {
            try domain.run(mailtoRouteBinary, ["account", "add"] + arguments + ["--password-stdin"],
                           environment: environment, stdin: Data(password.utf8), timeout: timeout)
        }

        func mailtoRoute(_ arguments: [String]) throws -> RunResult {
            try domain.run(mailtoRouteBinary, arguments, environment: environment)
        }

        /// No file under the sandbox (the config, the state, the outcome log, drafts), no
        /// output, holds `password`.
        func expectNowhere(_ password: String, outputs: [RunResult]) {
            let files = FileManager.default.enumerator(at: sandbox.root, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL } ?? []
            for file in files {
                guard let data = FileManager.default.contents(atPath: file.path) else { continue }
                #expect(!String(decoding: data, as: UTF8.self).contains(password), "\(file.path) holds the password")
            }
            for output in outputs {
                #expect(!output.stdout.contains(password) && !output.stderr.contains(password))
            }
        }
    }

    private func world(_ domain: MailDomain) throws -> World {
        World(domain: domain, keyring: try TestKeyring(), sandbox: try Sandbox())
    }

    @Test func srvRecordFindsTheServerThenTheAccountSends() throws {
        let password = "pw-\(UUID().uuidString)"
        let name = "srv.example.test"
        // An unusual port that only the record names: neither a guess nor a default.
        let world = try world(MailDomain(name, srv: [("submissions", "mail.\(name)", 4650)], names: ["mail.\(name)"]))
        let server = try SMTPTestServer(.tls, certificate: world.domain.certificate, auth: ("jane@\(name)", password),
                                        port: 4650, address: world.domain.address)
        // The user's own file: its comment, its other group and its mode stay as they were.
        try world.sandbox.write("# my own comment\n[route]\npolicy=ask\n", to: "home/.config/mailto-route/config", mode: 0o640)

        let added = try world.accountAdd(["Jane Doe <jane@\(name)>"], password: password)
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout.contains("tls://mail.\(name):4650"), "\(added)")
        #expect(world.domain.queries.first == "SRV _submissions._tcp.\(name)")
        // Found by SRV: no autoconfig file was asked for.
        #expect(world.domain.autoconfigRequests.isEmpty)
        let text = world.config
        // GLib keeps the comment (with a blank line after it, as it writes a file's first comment).
        #expect(text.hasPrefix("# my own comment\n") && text.contains("\n[route]\npolicy=ask\n"), "\(text)")
        #expect(text.contains("[account jane@\(name)]\nfrom=Jane Doe <jane@\(name)>\nhost=mail.\(name)\nport=4650\nsecurity=tls\nuser=jane@\(name)"), "\(text)")
        let mode = try FileManager.default.attributesOfItem(atPath: world.configPath)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(try world.keyring.lookup(["host": "mail.\(name)", "service": "smtp", "user": "jane@\(name)"]) == password)

        let sent = try world.mailtoRoute(["send", "--to", "joe@example.org", "--subject", "Set up", "--body", "hi"])
        #expect(sent.status == 0, "\(sent)")
        #expect(server.messages.count == 1)
        if let message = server.messages.first {
            let headers = try #require(try pythonView(of: message)["headers"] as? [String: String])
            #expect(headers["From"] == "Jane Doe <jane@\(name)>")
        }
        world.expectNowhere(password, outputs: [added, sent])
    }

    /// No SRV record: the domain's autoconfig file, from either of Thunderbird's places.
    @Test(arguments: [MailDomain.AutoconfigPlace.autoconfig, .wellKnown])
    func autoconfigFindsTheServerWhenThereIsNoSRVRecord(_ place: MailDomain.AutoconfigPlace) throws {
        let password = "pw-\(UUID().uuidString)"
        let name = "autoconfig.example.test"
        let world = try world(MailDomain(name, names: [name, "autoconfig.\(name)", "submit.\(name)"]))
        let server = try SMTPTestServer(.starttls, certificate: world.domain.certificate, auth: ("jane", password),
                                        port: 5870, address: world.domain.address)
        // A plain-text server first: never taken (TLS by default).
        try world.domain.serveAutoconfig(outgoing: ["plain.\(name):25:plain", "submit.\(name):5870:STARTTLS"], at: place)

        let added = try world.accountAdd(["jane@\(name)", "--account", "work"], password: password)
        // %EMAILADDRESS% is the login the file names; the server wants "jane": refused.
        #expect(added.status == 78, "\(added)")
        #expect(added.stderr.contains("refused the user name or password"), "\(added)")
        #expect(!FileManager.default.fileExists(atPath: world.configPath))
        #expect(try world.keyring.lookup(["host": "submit.\(name)", "service": "smtp", "user": "jane@\(name)"]) == nil)
        let requests = world.domain.autoconfigRequests
        // Thunderbird's order: the autoconfig host first (404 when only the well-known path serves it).
        #expect(requests.last == (place == .autoconfig
            ? "autoconfig.\(name) /mail/config-v1.1.xml?emailaddress=jane%40\(name)"
            : "\(name) /.well-known/autoconfig/mail/config-v1.1.xml"), "\(requests)")
        #expect(server.messages.isEmpty)
        world.expectNowhere(password, outputs: [added])
    }

    @Test func autoconfigServerIsKeptAndSends() throws {
        let password = "pw-\(UUID().uuidString)"
        let name = "autoconfig2.example.test"
        let world = try world(MailDomain(name, names: ["autoconfig.\(name)", "submit.\(name)"]))
        let server = try SMTPTestServer(.starttls, certificate: world.domain.certificate, auth: ("jane@\(name)", password),
                                        port: 5870, address: world.domain.address)
        try world.domain.serveAutoconfig(outgoing: ["submit.\(name):5870:STARTTLS"], at: .autoconfig)
        let added = try world.accountAdd(["jane@\(name)", "--json"], password: password)
        #expect(added.status == 0, "\(added)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: String])
        #expect(json["account"] == "jane@\(name)")
        #expect(json["server"] == "submit.\(name):5870")
        #expect(json["security"] == "starttls")
        #expect(json["foundBy"] == "autoconfig")
        #expect(json["password"] == "keyring")
        let sent = try world.mailtoRoute(["send", "--to", "joe@example.org", "--body", "hi"])
        #expect(sent.status == 0, "\(sent)")
        #expect(server.messages.count == 1)
        world.expectNowhere(password, outputs: [added, sent])
    }

    /// Neither SRV nor autoconfig: smtp.DOMAIN on 465 (nothing there), then on 587.
    @Test func guessesTrySMTPDotDomainOn465Then587() throws {
        let password = "pw-\(UUID().uuidString)"
        let name = "guess.example.test"
        let world = try world(MailDomain(name, names: ["smtp.\(name)"]))
        let server = try SMTPTestServer(.starttls, certificate: world.domain.certificate, auth: ("jane@\(name)", password),
                                        port: 587, address: world.domain.address)
        let added = try world.accountAdd(["jane@\(name)"], password: password)
        #expect(added.status == 0, "\(added)")
        #expect(added.stderr.contains("Testing smtp.\(name):465 (a guess)...\nTesting smtp.\(name):587 (a guess)..."), "\(added)")
        #expect(world.config.contains("host=smtp.\(name)\nport=587\nsecurity=starttls"), "\(world.config)")
        let sent = try world.mailtoRoute(["send", "--to", "joe@example.org", "--body", "hi"])
        #expect(sent.status == 0, "\(sent)")
        #expect(server.messages.count == 1)
    }

    /// Nothing anywhere: one clear line, each place that was asked, the way to give the
    /// server by hand, nothing kept; then the server given by hand.
    @Test func nothingFoundSaysSoThenTheServerGivenByHandWorks() throws {
        let password = "pw-\(UUID().uuidString)"
        let name = "nothing.example.test"
        let world = try world(MailDomain(name, names: ["relay.\(name)"]))
        let server = try SMTPTestServer(.tls, certificate: world.domain.certificate, auth: ("jane", password),
                                        port: 4650, address: world.domain.address)
        let failed = try world.accountAdd(["jane@\(name)"], password: password)
        #expect(failed.status == 78, "\(failed)")
        let lines = failed.stderr.split(separator: "\n").map(String.init)
        #expect(lines.last == "mailto-route: Could not find your mail server for \(name)", "\(failed)")
        #expect(lines.contains("  _submissions._tcp.\(name): no SRV record"))
        #expect(lines.contains("give the server with --host (and --port, --security, --user) to set it up by hand"))
        #expect(!FileManager.default.fileExists(atPath: world.configPath))

        let manual = try world.accountAdd(["jane@\(name)", "--host", "relay.\(name)", "--port", "4650", "--security", "tls",
                                           "--user", "jane"], password: password)
        #expect(manual.status == 0, "\(manual)")
        #expect(try world.keyring.lookup(["host": "relay.\(name)", "service": "smtp", "user": "jane"]) == password)
        let sent = try world.mailtoRoute(["send", "--to", "joe@example.org", "--body", "hi"])
        #expect(sent.status == 0, "\(sent)")
        #expect(server.messages.count == 1)
        world.expectNowhere(password, outputs: [failed, manual, sent])
    }

    /// The built-in table: gmail.com's server (here on loopback, with the test CA's
    /// certificate for smtp.gmail.com), and the app-password note when the login is refused.
    @Test func theTableKnowsGmailAndSaysWhatItNeeds() throws {
        let password = "app-password-\(UUID().uuidString)"
        let world = try world(MailDomain("gmail.com", names: ["smtp.gmail.com"]))
        let server = try SMTPTestServer(.tls, certificate: world.domain.certificate, auth: ("jane@gmail.com", password),
                                        port: 465, address: world.domain.address)
        let refused = try world.accountAdd(["jane@gmail.com"], password: "my-google-password")
        #expect(refused.status == 78, "\(refused)")
        #expect(refused.stderr.contains("Gmail takes an app password"), "\(refused)")
        let added = try world.accountAdd(["jane@gmail.com"], password: password)
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout.contains("tls://smtp.gmail.com:465") && added.stdout.contains("found by Gmail"), "\(added)")
        _ = server
    }

    @Test func outlookNeedsOnlineAccountsAndNothingIsAsked() throws {
        let world = try world(MailDomain("outlook.com"))
        let result = try world.accountAdd(["jane@outlook.com"], password: "pw")
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("Outlook.com takes no password over SMTP"), "\(result)")
        #expect(result.stderr.contains("GNOME Online Accounts"))
        #expect(world.domain.queries.isEmpty)
    }

    /// The password never goes on a command line: there is no option for it.
    @Test func noOptionTakesThePassword() throws {
        let sandbox = try Sandbox()
        let result = try run(mailtoRouteBinary, ["account", "add", "jane@example.org", "--password", "secret"],
                             environment: sandbox.environment)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("mailto-route: unknown option '--password'\n"), "\(result)")
        let noTerminal = try run(mailtoRouteBinary, ["account", "add", "jane@example.org"], environment: sandbox.environment)
        #expect(noTerminal.status == 64, "\(noTerminal)")
        #expect(noTerminal.stderr.hasPrefix("mailto-route: no terminal to type the password on"), "\(noTerminal)")
    }

    /// The autoconfig file is read over HTTPS whose certificate verifies, and nothing else:
    /// without the test CA trusted, the handshake is refused and the file never asked for.
    @Test func autoconfigBehindACertificateThatDoesNotVerifyIsNotRead() throws {
        let name = "untrusted.example.test"
        let world = try world(MailDomain(name, names: ["autoconfig.\(name)", "submit.\(name)"]))
        try world.domain.serveAutoconfig(outgoing: ["submit.\(name):5870:STARTTLS"], at: .autoconfig)
        let result = try world.domain.run(mailtoRouteBinary, ["account", "add", "jane@\(name)", "--password-stdin"],
                                          environment: world.environment, stdin: Data("pw".utf8), trustingTestCA: false)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("Could not find your mail server for \(name)"), "\(result)")
        #expect(world.domain.autoconfigRequests.isEmpty)
        // The server logs the handshake the client broke off once it has read the alert:
        // on a loaded machine, a moment after the command is over.
        try waitUntil("the autoconfig server logged the refused handshake (UNKNOWN_CA): \(world.domain.autoconfigTLSErrors)") {
            world.domain.autoconfigTLSErrors.contains { $0.contains("UNKNOWN_CA") }
        }
        #expect(world.domain.autoconfigTLSErrors.contains { $0.contains("UNKNOWN_CA") }, "\(world.domain.autoconfigTLSErrors)")
    }

    /// A server that never answers (within the test) costs the fetch's ten seconds for each
    /// of the two places, never a hang: each is given up at its time limit, as the steps say,
    /// and the run ends (the harness's patience after the two limits catches a hang).
    @Test func aSilentAutoconfigServerCostsItsTimeLimitNotAHang() throws {
        let name = "slow.example.test"
        let world = try world(MailDomain(name, names: [name, "autoconfig.\(name)"]))
        try world.domain.serveAutoconfig(outgoing: ["submit.\(name):5870:STARTTLS"], delay: 600)
        let result = try world.accountAdd(["jane@\(name)"], password: "pw", timeout: 2 * 10 + patience)
        #expect(result.status == 78, "\(result)")
        // The project's words for the fetch's own time limit; libcurl's ("Operation timed out
        // after 10001 milliseconds") are English in every locale and stay out of what a
        // person reads.
        for place in ["autoconfig.\(name)/mail", "\(name)/.well-known/autoconfig/mail"] {
            #expect(result.stderr.contains("  https://\(place)/config-v1.1.xml: no answer in time\n"), "\(result)")
        }
    }

    /// Each mistake on the command line: one line, the documented status, nothing asked.
    @Test(arguments: [
        (["account"], "mailto-route: account needs an action: add ADDRESS", Int32(64)),
        (["account", "remove", "a@example.org"], "mailto-route: unknown account action 'remove'", 64),
        (["account", "add"], "mailto-route: account add needs an ADDRESS", 64),
        (["account", "add", "a@example.org", "--port", "587"], "mailto-route: --port goes with --host", 64),
        (["account", "add", "a@example.org", "--host", "h", "--port", "0"], "mailto-route: --port 0: must be a number from 1 to 65535", 64),
        (["account", "add", "a@example.org", "--host", "h", "--security", "none"], "mailto-route: --security none: must be tls or starttls", 64),
        (["account", "add", "not an address", "--password-stdin"], "mailto-route: ", 65),
    ])
    func mistakesAreOneLineWithTheirStatus(_ arguments: [String], _ line: String, _ status: Int32) throws {
        let sandbox = try Sandbox()
        let result = try run(mailtoRouteBinary, arguments, environment: sandbox.environment, stdin: Data("pw".utf8))
        #expect(result.status == status, "\(result)")
        #expect(result.stderr.hasPrefix(line), "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.configHome.appendingPathComponent("mailto-route/config").path))
    }
}
