import DesktopIntegration
import MIMEMessage
import SMTPTransport

extension Account {
    /// The prefix of the names of GNOME Online Accounts' accounts (`goa:ID`).
    public static let onlineAccountsPrefix = "goa:"

    /// A mail account of GNOME Online Accounts as a sending account, read as Geary reads
    /// one (its `GoaMediator`): the host from `SmtpHost`, which may carry `:port`; implicit
    /// TLS when `SmtpUseSsl` (it wins over `SmtpUseTls`: Gmail through GOA 3.46 sets both,
    /// with no port, and takes implicit TLS on 465), else STARTTLS when `SmtpUseTls`; the
    /// login `SmtpUserName` (not always the address: an IMAP and SMTP account's is what the
    /// user typed). The default port follows the security: 465, 587, or 25.
    /// `caFile`: the trust anchors added to the system's (`SSL_CERT_FILE`), as for every account.
    init(online: OnlineMailAccount, caFile: String?) throws(ConfigurationError) {
        let name = Self.onlineAccountsPrefix + online.id
        let source = "GNOME Online Accounts (\(online.providerName.isEmpty ? online.providerType : online.providerName))"
        let place = "\(source), \(online.presentationIdentity.isEmpty ? online.id : online.presentationIdentity)"
        let from: Mailbox
        do {
            from = try Mailbox(online.emailAddress, displayName: online.name.isEmpty ? nil : online.name)
        } catch {
            throw ConfigurationError(tr("%@: its address '%@' cannot send: %@", place, online.emailAddress.visible, error.message))
        }
        let security: SMTPServer.Security = online.smtpUseSsl ? .tls : online.smtpUseTls ? .starttls : .none
        guard let (host, port) = Self.hostAndPort(online.smtpHost) else {
            throw ConfigurationError(tr("%@: its SMTP server '%@' is not a host name", place, online.smtpHost.visible))
        }
        let user: String? = switch online.auth {
        case .none: nil
        case .oauth2, .password: online.smtpUserName.isEmpty ? online.emailAddress : online.smtpUserName
        }
        let server = SMTPServer(host: host, port: port ?? (security == .tls ? 465 : security == .starttls ? 587 : 25),
                                security: security, caFile: caFile, user: user)
        if server.plainTextRefusal != nil {
            throw ConfigurationError(tr("%@: GNOME Online Accounts sets no encryption for %@, and mailto-route sends "
                + "in plain text only to this machine; choose SSL or STARTTLS for SMTP in Settings, Online Accounts", place, host))
        }
        self.init(name: name, from: from, server: server, password: online.auth == .none ? .none : .onlineAccounts(online),
                  source: source)
        imap = Self.imapServer(online: online, like: server)
    }

    /// `HOST`, `HOST:PORT`, `[IPV6]:PORT` or a bare IPv6 address, as GLib's
    /// `g_network_address_parse` reads `SmtpHost`; `nil` when it names no host.
    static func hostAndPort(_ text: String) -> (String, Int?)? {
        let text = text.trimmingSpaces()
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return host.isEmpty ? nil : (host, nil) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port), !host.isEmpty else { return nil }
            return (host, port)
        }
        let colons = text.filter { $0 == ":" }.count
        if colons == 1, let colon = text.firstIndex(of: ":") {
            guard let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port), colon != text.startIndex else { return nil }
            return (String(text[..<colon]), port)
        }
        return text.isEmpty ? nil : (text, nil)
    }
}
