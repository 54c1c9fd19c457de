#if canImport(Glibc)
import Glibc
#endif
public import DesktopIntegration
public import MIMEMessage
public import SMTPTransport

/// A sending account: who the message is from and the server that submits it. Accounts
/// come from the config files (`[account NAME]`), msmtp's file and GNOME Online Accounts
/// (`Configuration`, `Session.accounts`); a run reads them once.
public struct Account: Sendable {
    /// The name `send --account` and `default=` take: NAME of `[account NAME]` (`default`
    /// for the unnamed `[account]`), `msmtp:NAME` for an account of msmtp's file, `goa:ID`
    /// for one of GNOME Online Accounts.
    public var name: String
    public var from: Mailbox
    /// The server; its credentials are filled in at the attempt (`Session`), not by loading.
    public var server: SMTPServer
    public var password: PasswordSource
    /// Where it comes from, as messages name it (a file, `FILE (account NAME)`, or
    /// `GNOME Online Accounts (Google)`).
    public var source: String
    /// The account's IMAP server, where a webmail handoff stores the message as a draft
    /// (`imap-host=`, GNOME Online Accounts' `ImapHost`); its credentials, as the SMTP
    /// server's, are filled in at the attempt (`Session.imapServer(for:)`).
    public var imap: SMTPServer?
    /// What the sheet puts below a new message, after `-- ` (RFC 3676 §4.3): `signature=`
    /// (with `\n` for a line break, as key files write it) or `signature-file=`.
    public var signature: String?
    /// The browser and profile the webmail way of this account opens in
    /// (`webmail-browser=`, `webmail-browser-profile=` of its group, both as written there:
    /// a profile belongs to its browser); `nil`: `[route]`'s.
    public var webmailBrowser: WebmailBrowser?

    public init(name: String = "default", from: Mailbox, server: SMTPServer, password: PasswordSource, source: String) {
        self.name = name
        self.from = from
        self.server = server
        self.password = password
        self.source = source
    }

    public enum PasswordSource: Sendable, Equatable {
        /// With a user: the Secret Service, under msmtp's attributes.
        case none
        /// `password-command=` / msmtp's `passwordeval`: run without a terminal.
        case command(String)
        /// `password=` in a file only its owner can read (checked when loading).
        case inline(String)
        /// GNOME Online Accounts: an access token or the keyring's SMTP password, asked for
        /// at each attempt and never kept.
        case onlineAccounts(OnlineMailAccount)
    }

    /// The GNOME Online Accounts account it is, if it is one.
    public var onlineAccount: OnlineMailAccount? {
        if case .onlineAccounts(let online) = password { return online }
        return nil
    }

    /// The server with its password, from the account's password source; a
    /// password-command gets `commandTimeout` seconds; a locked keyring is unlocked through
    /// its own prompt when `mayPrompt` (there is a display to show it on). An account of
    /// GNOME Online Accounts gets its credentials from the Session at each attempt, never
    /// here: its server is returned as it is.
    public func serverWithPassword(
        commandTimeout: Double = PasswordCommand.timeoutSeconds, mayPrompt: Bool = false
    ) throws(ConfigurationError) -> SMTPServer {
        try withPassword(server, service: "smtp", commandTimeout: commandTimeout, mayPrompt: mayPrompt)
    }

    /// `server` (the account's SMTP or IMAP server) with the account's password; in the
    /// Secret Service it is looked up under `service` (`smtp`, `imap`), and for IMAP, where
    /// none is stored there, under the account's SMTP server: an account set up by
    /// mailto-route (`account add`, the sheet) stored only that one, and a provider's IMAP
    /// and SMTP take the same password (a refusal is said, never retried).
    func withPassword(
        _ server: SMTPServer, service: String, commandTimeout: Double = PasswordCommand.timeoutSeconds, mayPrompt: Bool = false
    ) throws(ConfigurationError) -> SMTPServer {
        var server = server
        switch password {
        case .none:
            guard let user = server.user else { break }
            // msmtp's attributes, so that a password stored for msmtp (or with
            // `secret-tool store --label=... host H service smtp user U`) is found.
            let attributes = ["host": server.host, "service": service, "user": user]
            var found: String?
            do {
                found = try SecretService.lookup(attributes, mayPrompt: mayPrompt)
                if found == nil, service != "smtp", let smtpUser = self.server.user {
                    found = try SecretService.lookup(["host": self.server.host, "service": "smtp", "user": smtpUser], mayPrompt: mayPrompt)
                }
            } catch {
                throw ConfigurationError(
                    tr("%@: no password for user %@: set password-command=, or store it in the Secret Service (%@)", source, user, error.message))
            }
            guard let found else {
                throw ConfigurationError(
                    tr("%@: no password for user %@: set password-command=, or store it in the Secret Service with "
                        + "host=%@ service=%@ user=%@", source, user, server.host, service, user))
            }
            server.password = found
        case .inline(let password):
            server.password = password
        case .command(let command):
            server.password = try PasswordCommand.run(command, source: source, timeout: commandTimeout)
        case .onlineAccounts:
            break
        }
        return server
    }
}

extension Account {
    /// The keys of an account group: any other is a mistake, named with the closest of these.
    public static let keys: Set<String> = Set([
        "from", "host", "port", "security", "user", "password", "password-command", "ca-file", "allow-plaintext",
        "timeout", "signature", "signature-file", "webmail-browser", "webmail-browser-profile",
    ]).union(imapKeys)

    /// An account group of the config files (docs/design.md "Files"), named `name`, as the
    /// layers make it (`group`); `modes` gives each file's permission bits. Throws one line
    /// per mistake, naming the file of the key at fault.
    init(_ group: SettingsGroup, name: String, modes: [String: UInt32], defaultCAFile: String? = nil) throws(ConfigurationError) {
        let title = "[\(group.name)]"
        for key in group.keys where !Self.keys.contains(key) {
            throw ConfigurationError(tr("%@: unknown key '%@' in %@", group.file(of: key), key, title)
                + (closest(to: key, among: Self.keys).map { tr("; did you mean '%@'?", $0) } ?? ""))
        }
        guard let fromText = group.value("from") else { throw ConfigurationError(tr("%@: %@ needs from=", group.file, title)) }
        guard let host = group.value("host") else { throw ConfigurationError(tr("%@: %@ needs host=", group.file, title)) }
        let from: Mailbox
        do { from = try Mailbox(parsing: fromText) } catch { throw ConfigurationError("\(group.file(of: "from")): from=: \(error.message)") }
        let port = try group.value("port").map { (text) throws(ConfigurationError) in try Self.port(text, group.file(of: "port")) }
        let security = try Self.security(group, key: "security", otherwise: port == 465 ? .tls : .starttls)
        var allowPlaintext = false
        if let text = group.value("allow-plaintext") {
            guard text == "true" || text == "false" else {
                throw ConfigurationError(tr("%@: allow-plaintext=%@: must be true or false", group.file(of: "allow-plaintext"), text))
            }
            allowPlaintext = text == "true"
        }
        var password = PasswordSource.none
        let inline = group.setting("password")
        // Others can read the password whether or not password-command= wins over it.
        if let inline {
            try Self.checkPrivate(inline.file, mode: modes[inline.file] ?? 0o077, why: tr("it holds password="))
        }
        if let command = group.value("password-command") {
            password = .command(command)
        } else if let inline {
            password = .inline(inline.value)
        }
        let caFile = group.value("ca-file") ?? defaultCAFile
        if let caFile, access(caFile, R_OK) != 0 {
            throw ConfigurationError("\(group.file(of: "ca-file")): ca-file=\(caFile): \(systemErrorText(errno))")
        }
        var server = SMTPServer(host: host, port: port, security: security, allowPlaintext: allowPlaintext,
                                caFile: caFile, user: group.value("user"))
        if let text = group.value("timeout") {
            guard let seconds = Int(text), (1...3600).contains(seconds) else {
                throw ConfigurationError(tr("%@: timeout=%@: must be a number of seconds from 1 to 3600", group.file(of: "timeout"), text))
            }
            server.connectTimeout = seconds
            server.stallTimeout = seconds
        }
        // A mistake of the file, found when it is read: a link then goes to the mail
        // program as for any unusable account, rather than asking to send what the
        // transport would refuse.
        if let refusal = server.plainTextRefusal { throw ConfigurationError("\(group.file(of: "security")): \(refusal)") }
        self.init(name: name, from: from, server: server, password: password, source: group.file)
        imap = try Self.imapServer(group, smtp: server)
        signature = try Self.signature(group)
        if group.value("webmail-browser") != nil || group.value("webmail-browser-profile") != nil {
            webmailBrowser = WebmailBrowser(desktopID: group.value("webmail-browser"), profile: group.value("webmail-browser-profile"),
                                            group: title)
        }
    }

    /// `signature=` (its escapes undone by the key file's reader), else the text of
    /// `signature-file=` (an absolute path); a file that cannot be read is a mistake of
    /// the config, named.
    static func signature(_ group: SettingsGroup) throws(ConfigurationError) -> String? {
        if let text = group.rawValue("signature") {
            let trimmed = text.trimmingTrailingNewlines()
            return trimmed.isEmpty ? nil : trimmed
        }
        guard let path = group.value("signature-file") else { return nil }
        let bytes: [UInt8]?
        do {
            bytes = try readFileIfExists(path)
        } catch {
            throw ConfigurationError("\(group.file(of: "signature-file")): signature-file=\(path): \(Failure(error, otherwise: .configuration).message)")
        }
        guard let bytes else {
            throw ConfigurationError(tr("%@: signature-file=%@: no such file", group.file(of: "signature-file"), path))
        }
        let text = String(decoding: bytes.prefix(16_384), as: UTF8.self).trimmingTrailingNewlines()
        return text.isEmpty ? nil : text
    }

    /// `key=` of `group` (`security=`, `imap-security=`): `tls`, `starttls` or `none`;
    /// `otherwise` when the key is not there.
    static func security(
        _ group: SettingsGroup, key: String, otherwise: SMTPServer.Security
    ) throws(ConfigurationError) -> SMTPServer.Security {
        guard let text = group.value(key) else { return otherwise }
        guard let parsed = SMTPServer.Security(rawValue: text) else {
            throw ConfigurationError(tr("%@: %@=%@: must be tls, starttls or none", group.file(of: key), key, text))
        }
        return parsed
    }

    static func port(_ text: String, _ path: String, key: String = "port") throws(ConfigurationError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw ConfigurationError(tr("%@: %@=%@: must be a number from 1 to 65535", path, key, text))
        }
        return port
    }

    /// A file holding a password must be readable by its owner alone (as msmtp demands).
    static func checkPrivate(_ path: String, mode: UInt32, why: String) throws(ConfigurationError) {
        if mode & 0o077 != 0 {
            let bits = String(mode & 0o777, radix: 8)
            throw ConfigurationError(tr("%@: refusing to read a password from a file %@ (mode %@; run chmod 600 %@), "
                + "since %@", path, tr("others can read"), bits, path, why))
        }
    }
}

extension String {
    /// Without the line breaks at its end (a signature file's last newline).
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == "\r" || last == "\r\n" { text = text.dropLast() }
        return String(text)
    }
}
