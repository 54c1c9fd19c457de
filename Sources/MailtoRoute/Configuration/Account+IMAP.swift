import DesktopIntegration
import SMTPTransport

extension Account {
    /// The keys of an account group that name its IMAP server, where a webmail handoff
    /// stores the message as a draft (docs/accounts.md).
    static let imapKeys: Set<String> = ["imap-host", "imap-port", "imap-security", "imap-user"]

    /// The IMAP server of an account group: `imap-host=`, `imap-port=` (993 for tls, 143
    /// for starttls), `imap-security=` (`tls`, `starttls` or `none`, as `security=`; tls
    /// unless the port is 143), `imap-user=` (the SMTP `user=` when not given). The rest
    /// (`ca-file=`, `allow-plaintext=`, `timeout=`) is the SMTP server's. `nil` without
    /// `imap-host=`.
    static func imapServer(_ group: SettingsGroup, smtp: SMTPServer) throws(ConfigurationError) -> SMTPServer? {
        guard let host = group.value("imap-host") else {
            if let key = imapKeys.sorted().first(where: { group.value($0) != nil }) {
                throw ConfigurationError(tr("%@: %@ needs imap-host=", group.file(of: key), key))
            }
            return nil
        }
        let port = try group.value("imap-port").map { (text) throws(ConfigurationError) in
            try Self.port(text, group.file(of: "imap-port"), key: "imap-port")
        }
        let security = try security(group, key: "imap-security", otherwise: port == 143 ? .starttls : .tls)
        var server = smtp
        server.host = host
        server.port = port ?? (security == .tls ? 993 : 143)
        server.security = security
        server.user = group.value("imap-user") ?? smtp.user
        if let refusal = server.plainTextRefusal { throw ConfigurationError("\(group.file(of: "imap-security")): \(refusal)") }
        return server
    }

    /// GNOME Online Accounts' IMAP server for `online`, read as its SMTP server is
    /// (`ImapHost` with its `:port`, `ImapUseSsl` before `ImapUseTls`, `ImapUserName`):
    /// an OAuth 2.0 account's (Google, Microsoft), whose token IMAP takes with XOAUTH2, or an
    /// IMAP and SMTP account's, with its IMAP password. `nil` where GOA names none, or where
    /// it would be plain text off this machine.
    static func imapServer(online: OnlineMailAccount, like smtp: SMTPServer) -> SMTPServer? {
        guard online.auth != .none, !online.imapHost.isEmpty, let (host, port) = hostAndPort(online.imapHost) else { return nil }
        var server = smtp
        server.host = host
        server.security = online.imapUseSsl ? .tls : online.imapUseTls ? .starttls : .none
        server.port = port ?? (server.security == .tls ? 993 : 143)
        server.user = online.imapUserName.isEmpty ? online.emailAddress : online.imapUserName
        return server.plainTextRefusal == nil ? server : nil
    }
}
