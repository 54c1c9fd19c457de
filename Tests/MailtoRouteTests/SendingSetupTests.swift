import Foundation
import MailtoRoute
import MIMEMessage
@testable import SMTPTransport
import Testing

/// The setup of an account in-process (docs/style.md 13): the autoconfig reader on text,
/// the table, and `SendingSetup` with a fake network that records what was asked, so that
/// the order of the sources and what is (not) given the password are seen exactly. The
/// real DNS, HTTPS, servers and keyring are `SendTests.AccountSetupTests`'.
@Suite struct SendingSetupTests {
    /// Answers from tables; records every question in order.
    final class FakeNetwork: MailServerNetwork, @unchecked Sendable {
        var records: [String: [ServiceRecord]] = [:]
        var files: [String: String] = [:]
        /// `host:port` → what the server does with the login.
        var servers: [String: Bool] = [:]
        var keyringRefuses = false
        /// `host:port` of servers that answer and offer no STARTTLS.
        var withoutSTARTTLS: Set<String> = []
        private(set) var asked: [String] = []
        private(set) var stored: [(password: String, attributes: [String: String])] = []

        func serviceRecords(service: String, domain: String) throws -> [ServiceRecord] {
            asked.append("SRV _\(service)._tcp.\(domain)")
            return records["_\(service)._tcp.\(domain)"] ?? []
        }

        func fetch(_ url: String, caFile: String?) throws -> HTTPSFetch.Response {
            asked.append("GET \(url)")
            guard let text = files[url] else { return HTTPSFetch.Response(status: 404, body: []) }
            return HTTPSFetch.Response(status: 200, body: Array(text.utf8))
        }

        func probe(_ server: SMTPServer) -> SMTPProbe {
            asked.append("PROBE \(server.security.rawValue)://\(server.address) as \(server.user ?? "-")")
            var probe = SMTPProbe(server: server.address, connected: false, encrypted: false, capabilities: [],
                                  authenticated: nil, error: nil, milliseconds: 1)
            if withoutSTARTTLS.contains(server.address) {
                probe.connected = true
                probe.error = SMTPError(.configuration, "\(server.address) does not offer STARTTLS; not sending in plain text", cause: .tls)
                return probe
            }
            guard let takesLogin = servers[server.address] else {
                probe.error = SMTPError(.transient, "cannot connect to \(server.address)")
                return probe
            }
            probe.connected = true
            probe.encrypted = true
            probe.authenticated = takesLogin
            if !takesLogin {
                var error = SMTPError(.configuration, "\(server.address) refused the user name or password: 535 5.7.8 no")
                error.refusedLogin = true
                probe.error = error
            }
            return probe
        }

        func storePassword(_ password: String, attributes: [String: String], label: String, mayPrompt: Bool) throws {
            asked.append("STORE \(attributes["host"] ?? "")")
            if keyringRefuses { throw SMTPError(.configuration, "the keyring is locked") }
            stored.append((password, attributes))
        }
    }

    func context(_ network: FakeNetwork) throws -> (SendingSetup.Context, String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("setup-\(UUID().uuidString)").path
        let paths = Paths(home: root, configHome: root + "/config", dataHome: root + "/data", stateHome: root + "/state")
        return (SendingSetup.Context(paths: paths, network: network, mayPrompt: false), paths.configFile)
    }

    func request(_ address: String, _ password: String = "s3cr3t-pw") throws -> SendingSetup.Request {
        SendingSetup.Request(from: try Mailbox(parsing: address), password: password)
    }

    @Test func autoconfigGivesItsTLSServersInOrderWithTheLoginFilledIn() throws {
        let text = """
            <?xml version="1.0"?>
            <clientConfig version="1.1"><emailProvider id="example.org">
              <outgoingServer type="smtp"><hostname>plain.example.org</hostname><port>25</port>
                <socketType>plain</socketType><username>%EMAILADDRESS%</username></outgoingServer>
              <outgoingServer type="smtp">
                <hostname>
                  smtp.example.org
                </hostname><port>465</port><socketType>SSL</socketType>
                <username>%EMAILLOCALPART%</username><authentication>password-cleartext</authentication>
              </outgoingServer>
              <outgoingServer type="smtp"><hostname>oauth.example.org</hostname><port>587</port>
                <socketType>STARTTLS</socketType><authentication>OAuth2</authentication></outgoingServer>
              <incomingServer type="imap"><hostname>imap.example.org</hostname><port>993</port></incomingServer>
            </emailProvider></clientConfig>
            """
        let servers = try Autoconfig.servers(in: text, address: "jane.doe@example.org", url: "test")
        let imap = try Autoconfig.servers(in: text.replacing("</incomingServer>", with: "<socketType>SSL</socketType></incomingServer>"),
                                          address: "jane.doe@example.org", url: "test", imap: true)
        #expect(imap.map(\.host) == ["imap.example.org"])
        #expect(servers.map(\.host) == ["smtp.example.org", "oauth.example.org"])
        #expect(servers.first?.security == .tls)
        #expect(servers.first?.user == "jane.doe")
        #expect(servers.first?.oauthOnly == false)
        #expect(servers.last?.oauthOnly == true)
        #expect(throws: DesktopError.self) { try Autoconfig.servers(in: "<clientConfig><oops>", address: "a@b.c", url: "test") }
    }

    @Test func theTableKnowsWhatEachLargeProviderNeeds() throws {
        let gmail = try #require(MailProvider.of(domain: "GMail.com"))
        #expect(gmail.host == "smtp.gmail.com" && gmail.port == 465 && gmail.security == .tls)
        #expect(gmail.login == .appPassword)
        #expect(MailProvider.of(domain: "hotmail.com")?.login == .onlineAccountsOnly)
        #expect(MailProvider.of(domain: "posteo.de")?.host == "posteo.de")
        #expect(MailProvider.of(domain: "example.org") == nil)
    }

    /// SRV first (submissions, then submission), then both autoconfig places, then the
    /// table, then the guesses; the first server that takes the login is kept.
    @Test func sourcesAreAskedInThunderbirdsOrderUntilAServerTakesTheLogin() throws {
        let network = FakeNetwork()
        network.servers = ["smtp.example.org:587": true]
        let (context, configFile) = try context(network)
        let outcome = try SendingSetup.run(try request("Jane <jane@example.org>"), context: context)
        #expect(network.asked == [
            "SRV _submissions._tcp.example.org", "SRV _submission._tcp.example.org",
            "GET https://autoconfig.example.org/mail/config-v1.1.xml?emailaddress=jane%40example.org",
            "GET https://example.org/.well-known/autoconfig/mail/config-v1.1.xml",
            "PROBE tls://smtp.example.org:465 as jane@example.org", "PROBE starttls://smtp.example.org:587 as jane@example.org",
            "SRV _imaps._tcp.example.org", "SRV _imap._tcp.example.org", "STORE smtp.example.org",
        ])
        #expect(outcome.source == .guess)
        #expect(network.stored.first?.attributes == ["host": "smtp.example.org", "service": "smtp", "user": "jane@example.org"])
        let text = try String(contentsOfFile: configFile, encoding: .utf8)
        #expect(text.contains("[account jane@example.org]\nfrom=Jane <jane@example.org>\nhost=smtp.example.org\nport=587\nsecurity=starttls\nuser=jane@example.org\n"))
        #expect(!text.contains("s3cr3t-pw"))
        // The file reads back as an account, its password from the keyring (no key for it).
        let paths = context.paths
        let account = try Configuration.load(paths).accounts.first?.account.get()
        #expect(account?.password == Account.PasswordSource.none)
        #expect(account?.server.user == "jane@example.org")
    }

    /// The account set up names its IMAP server, for a webmail handoff's drafts: from SRV
    /// (`_imaps._tcp` before `_imap._tcp`), else the autoconfig file read for SMTP, else the
    /// table; none from a guess.
    @Test(arguments: ["srv", "autoconfig", "provider", "none"])
    func theAccountSetUpNamesTheIMAPServerDiscoveryFound(source: String) throws {
        let network = FakeNetwork()
        let domain = source == "provider" ? "fastmail.com" : "example.org"
        let smtpHost = source == "provider" ? "smtp.fastmail.com" : "smtp.example.org"
        network.servers = ["\(smtpHost):465": true]
        if source == "srv" {
            network.records["_imap._tcp.example.org"] = [ServiceRecord(host: "imap-starttls.example.org", port: 143)]
            network.records["_imaps._tcp.example.org"] = [ServiceRecord(host: "imap.example.org", port: 1993)]
        }
        if source == "autoconfig" {
            network.files["https://example.org/.well-known/autoconfig/mail/config-v1.1.xml"] = """
                <clientConfig version="1.1"><emailProvider id="example.org">
                  <incomingServer type="imap"><hostname>mailbox.example.org</hostname><port>143</port>
                    <socketType>STARTTLS</socketType><username>%EMAILLOCALPART%</username></incomingServer>
                  <outgoingServer type="smtp"><hostname>smtp.example.org</hostname><port>465</port>
                    <socketType>SSL</socketType><username>%EMAILADDRESS%</username></outgoingServer>
                </emailProvider></clientConfig>
                """
        }
        let (context, configFile) = try context(network)
        _ = try SendingSetup.run(try request("jane@\(domain)"), context: context)
        let account = try #require(try Configuration.load(context.paths).accounts.first?.account.get())
        let text = try String(contentsOfFile: configFile, encoding: .utf8)
        switch source {
        case "srv": #expect(account.imap?.address == "imap.example.org:1993" && account.imap?.security == .tls, "\(text)")
        case "autoconfig":
            #expect(account.imap?.address == "mailbox.example.org:143" && account.imap?.security == .starttls, "\(text)")
            #expect(account.imap?.user == "jane" && text.contains("imap-user=jane\n"), "\(text)")
        case "provider": #expect(account.imap?.address == "imap.fastmail.com:993" && account.imap?.security == .tls, "\(text)")
        default: #expect(account.imap == nil && !text.contains("imap-"), "\(text)")
        }
    }

    @Test func aRefusedLoginEndsTheSetupAndNoOtherServerIsGivenThePassword() throws {
        let network = FakeNetwork()
        network.records["_submissions._tcp.example.org"] = [ServiceRecord(host: "mail.example.org", port: 465)]
        network.servers = ["mail.example.org:465": false, "smtp.example.org:587": true]
        let (context, configFile) = try context(network)
        #expect {
            try SendingSetup.run(try request("jane@example.org"), context: context)
        } throws: { error in
            (error as? SendingSetupError)?.reason == .loginRefused
        }
        #expect(network.asked.filter { $0.hasPrefix("PROBE") } == ["PROBE tls://mail.example.org:465 as jane@example.org"])
        #expect(network.stored.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: configFile))
    }

    /// A server given by hand that answered is said to have been reached, with what was
    /// wrong; only one that did not answer "could not be reached".
    @Test func aManualServerThatAnsweredIsNotCalledUnreachable() throws {
        let network = FakeNetwork()
        network.withoutSTARTTLS = ["mail.example.org:587"]
        let (context, _) = try context(network)
        var answered = try request("jane@example.org")
        answered.manual = SendingSetup.ManualServer(host: "mail.example.org", port: 587)
        #expect {
            try SendingSetup.run(answered, context: context)
        } throws: { error in
            (error as? SendingSetupError)?.message
                == "The mail server answered, but mail.example.org:587 does not offer STARTTLS; not sending in plain text"
        }
        var silent = try request("jane@example.org")
        silent.manual = SendingSetup.ManualServer(host: "down.example.org", port: 587)
        #expect {
            try SendingSetup.run(silent, context: context)
        } throws: { error in
            (error as? SendingSetupError)?.message == "Could not reach the mail server"
        }
    }

    @Test func nothingIsWrittenWhenTheKeyringRefuses() throws {
        let network = FakeNetwork()
        network.files["https://example.org/.well-known/autoconfig/mail/config-v1.1.xml"] = """
            <clientConfig><emailProvider><outgoingServer type="smtp"><hostname>out.example.org</hostname>
            <port>465</port><socketType>SSL</socketType><username>%EMAILADDRESS%</username></outgoingServer>
            </emailProvider></clientConfig>
            """
        network.servers = ["out.example.org:465": true]
        network.keyringRefuses = true
        let (context, configFile) = try context(network)
        #expect {
            try SendingSetup.run(try request("jane@example.org"), context: context)
        } throws: { error in
            (error as? SendingSetupError)?.reason == .notSaved
        }
        #expect(!FileManager.default.fileExists(atPath: configFile))
    }

    @Test func outlookStopsBeforeAnythingIsAsked() throws {
        let network = FakeNetwork()
        let (context, _) = try context(network)
        #expect {
            try SendingSetup.run(try request("jane@hotmail.com"), context: context)
        } throws: { error in
            (error as? SendingSetupError)?.reason == .needsOnlineAccounts
        }
        #expect(network.asked.isEmpty)
    }

    @Test func anAddressANameCannotHoldIsMadeOne() {
        #expect(SendingSetup.accountName(for: "jane+news@example.org") == "jane_news@example.org")
    }
}
