public import DesktopIntegration
import MailtoCore
import MIMEMessage
public import SMTPTransport

/// What mail server discovery and the setup of an account reach outside the process
/// through: DNS, HTTPS, the submission server, the keyring. The real ones by default
/// (`Services.system`); the in-process tests give fakes.
public protocol MailServerNetwork {
    /// The SRV records of `_SERVICE._tcp.DOMAIN` (`ServiceRecords.lookup`).
    func serviceRecords(service: String, domain: String) throws -> [ServiceRecord]
    /// An HTTPS GET (`HTTPSFetch.get`), `caFile` trusted beside the system's anchors.
    func fetch(_ url: String, caFile: String?) throws -> HTTPSFetch.Response
    /// A live test of `server`, with its password (`SMTPSubmission.probe`).
    func probe(_ server: SMTPServer) -> SMTPProbe
    /// Stores a password in the keyring (`SecretService.store`).
    func storePassword(_ password: String, attributes: [String: String], label: String, mayPrompt: Bool) throws
}

/// GIO's resolver, libcurl, the submission server itself, libsecret.
public struct LiveMailServerNetwork: MailServerNetwork {
    public init() {}

    public func serviceRecords(service: String, domain: String) throws -> [ServiceRecord] {
        try ServiceRecords.lookup(service: service, domain: domain)
    }

    public func fetch(_ url: String, caFile: String?) throws -> HTTPSFetch.Response {
        try HTTPSFetch.get(url, caFile: caFile)
    }

    public func probe(_ server: SMTPServer) -> SMTPProbe {
        SMTPSubmission.probe(server, within: 10_000)
    }

    public func storePassword(_ password: String, attributes: [String: String], label: String, mayPrompt: Bool) throws {
        try SecretService.store(password, attributes: attributes, label: label, mayPrompt: mayPrompt)
    }
}

/// A submission server that discovery found for an address, to be tested before it is kept.
public struct ServerCandidate: Sendable, Equatable {
    /// Where it was found, in Thunderbird's order of asking.
    public enum Source: String, Sendable, CaseIterable {
        /// RFC 6186 SRV records: `_submissions._tcp` (implicit TLS), `_submission._tcp` (STARTTLS).
        case srv
        /// The domain's autoconfig file (`Autoconfig`).
        case autoconfig
        /// The built-in table of large providers (`MailProvider`).
        case provider
        /// `smtp.DOMAIN`, on 465 then 587.
        case guess
        /// Given by the person (`account add --host`, the sheet's manual form).
        case manual
    }

    /// The server and its login, without a password.
    public var server: SMTPServer
    public var source: Source
    /// Where exactly, as a person reads it: the SRV name, the autoconfig URL, the provider.
    public var origin: String
}

/// Finds the submission server of an address the way Thunderbird does (docs/accounts.md
/// "Setting up an account"): RFC 6186 SRV records, the domain's autoconfig file, the
/// built-in table of providers, then guesses. Each source is asked only when the ones
/// before gave nothing that worked (`SendingSetup`); `steps` says what each found.
public struct MailServerDiscovery {
    public let address: String
    public let domain: String
    private let network: any MailServerNetwork
    /// Trust anchors beside the system's, for the autoconfig fetch and the probes
    /// (`SSL_CERT_FILE`, as for every account: `Paths.defaultCAFile`).
    private let caFile: String?
    /// What each source found or why it found nothing, one line each, as a person reads it.
    public private(set) var steps: [String] = []
    /// The IMAP servers of the autoconfig file read for the SMTP server, if one was.
    private var autoconfigIMAP: [Autoconfig.Server] = []

    public init(address: String, network: any MailServerNetwork, caFile: String?) {
        self.address = address
        domain = IDNA.asciiDomain(String(address[address.index(after: address.lastIndex(of: "@") ?? address.startIndex)...])).asciiLowercased()
        self.network = network
        self.caFile = caFile
    }

    /// The candidates `source` gives, in the order to test them.
    public mutating func candidates(from source: ServerCandidate.Source) -> [ServerCandidate] {
        switch source {
        case .srv: return serviceRecordCandidates()
        case .autoconfig: return autoconfigCandidates()
        case .provider: return providerCandidates()
        case .guess: return guessCandidates()
        case .manual: return []
        }
    }

    /// A candidate for `host`, logging in as `user` (the address when not given).
    func candidate(_ host: String, _ port: Int, _ security: SMTPServer.Security, user: String? = nil,
                   source: ServerCandidate.Source, origin: String) -> ServerCandidate {
        ServerCandidate(server: SMTPServer(host: host, port: port, security: security, caFile: caFile, user: user ?? address),
                        source: source, origin: origin)
    }

    // MARK: - The sources

    /// RFC 6186 §3.1: `_submissions._tcp` (RFC 8314, implicit TLS) before `_submission._tcp`
    /// (STARTTLS), each in its records' order.
    private mutating func serviceRecordCandidates() -> [ServerCandidate] {
        var found: [ServerCandidate] = []
        for (service, security) in [("submissions", SMTPServer.Security.tls), ("submission", .starttls)] {
            let name = "_\(service)._tcp.\(domain)"
            do {
                let records = try network.serviceRecords(service: service, domain: domain)
                steps.append(records.isEmpty ? tr("%@: no SRV record", name)
                                             : tr("%@: %@", name, records.map { "\($0.host):\($0.port)" }.joined(separator: ", ")))
                found += records.map { candidate($0.host, $0.port, security, source: .srv, origin: name) }
            } catch {
                steps.append(tr("%@: %@", name, "\(error)"))
            }
        }
        return found
    }

    /// Thunderbird's two places for the domain's own file; the first that answers with
    /// one is taken.
    private mutating func autoconfigCandidates() -> [ServerCandidate] {
        for url in Autoconfig.urls(address: address, domain: domain) {
            // The URL as a person reads it: without the address in its query.
            let shown = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
            do {
                let response = try network.fetch(url, caFile: caFile)
                guard response.status == 200 else {
                    steps.append(tr("%@: HTTP status %@", shown, String(response.status)))
                    continue
                }
                let servers = try Autoconfig.servers(in: String(decoding: response.body, as: UTF8.self), address: address, url: shown)
                let usable = servers.filter { !$0.oauthOnly }
                if usable.isEmpty {
                    steps.append(servers.isEmpty ? tr("%@: no SMTP server with TLS", shown)
                                                 : tr("%@: the server takes OAuth2 only, which GNOME Online Accounts can do", shown))
                    continue
                }
                steps.append(tr("%@: %@", shown, usable.map { "\($0.host):\($0.port)" }.joined(separator: ", ")))
                let text = String(decoding: response.body, as: UTF8.self)
                autoconfigIMAP = (try? Autoconfig.servers(in: text, address: address, url: shown, imap: true)) ?? []
                return usable.map { candidate($0.host, $0.port, $0.security, user: $0.user, source: .autoconfig, origin: shown) }
            } catch {
                steps.append(tr("%@: %@", shown, "\(error)"))
            }
        }
        return []
    }

    private mutating func providerCandidates() -> [ServerCandidate] {
        guard let provider = MailProvider.of(domain: domain) else { return [] }
        steps.append(tr("%@: built in (%@)", "\(provider.host):\(provider.port)", provider.name))
        return [candidate(provider.host, provider.port, provider.security, source: .provider, origin: provider.name)]
    }

    // MARK: - IMAP

    /// Where the address's mailbox is reached over IMAP, for a webmail handoff's drafts
    /// (`imap-host=`), once its SMTP server is found: RFC 6186 §3.2 SRV records
    /// (`_imaps._tcp`, implicit TLS, before `_imap._tcp`, STARTTLS), the autoconfig file read
    /// for the SMTP server (its `incomingServer type="imap"`), the built-in table of
    /// providers; `nil` when none names one (no guess: a wrong server would be asked for the
    /// password). Not tested here: one that does not answer is said once, at the handoff.
    public func imapServer() -> SMTPServer? {
        for (service, security) in [("imaps", SMTPServer.Security.tls), ("imap", .starttls)] {
            // RFC 6186 §3.4: a target of "." says the service is not offered.
            if let record = (try? network.serviceRecords(service: service, domain: domain))?.first, record.host != "." {
                return candidate(record.host, record.port, security, source: .srv, origin: "").server
            }
        }
        if let found = autoconfigIMAP.first(where: { !$0.oauthOnly }) {
            return candidate(found.host, found.port, found.security, user: found.user, source: .autoconfig, origin: "").server
        }
        if let host = MailProvider.of(domain: domain)?.imapHost {
            return candidate(host, 993, .tls, source: .provider, origin: "").server
        }
        return nil
    }

    private mutating func guessCandidates() -> [ServerCandidate] {
        let host = "smtp.\(domain)"
        return [
            candidate(host, 465, .tls, source: .guess, origin: tr("a guess")),
            candidate(host, 587, .starttls, source: .guess, origin: tr("a guess")),
        ]
    }
}
