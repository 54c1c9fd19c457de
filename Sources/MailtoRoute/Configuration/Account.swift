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
        var server = server
        switch password {
        case .none:
            guard let user = server.user else { break }
            // msmtp's attributes, so that a password stored for msmtp (or with
            // `secret-tool store --label=... host H service smtp user U`) is found.
            let attributes = ["host": server.host, "service": "smtp", "user": user]
            let found: String?
            do {
                found = try SecretService.lookup(attributes, mayPrompt: mayPrompt)
            } catch {
                throw ConfigurationError(
                    "\(source): no password for user \(user): set password-command=, or store it in the Secret Service (\(error.message))")
            }
            guard let found else {
                throw ConfigurationError(
                    "\(source): no password for user \(user): set password-command=, or store it in the Secret Service with host=\(server.host) service=smtp user=\(user)")
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
    public static let keys: Set<String> = [
        "from", "host", "port", "security", "user", "password", "password-command", "ca-file", "allow-plaintext",
        "timeout",
    ]

    /// An account group of the config files (docs/design.md "Files"), named `name`, as the
    /// layers make it (`group`); `modes` gives each file's permission bits. Throws one line
    /// per mistake, naming the file of the key at fault.
    init(_ group: SettingsGroup, name: String, modes: [String: UInt32], defaultCAFile: String? = nil) throws(ConfigurationError) {
        let title = "[\(group.name)]"
        for key in group.keys where !Self.keys.contains(key) {
            throw ConfigurationError("\(group.file(of: key)): unknown key '\(key)' in \(title)"
                + (closest(to: key, among: Self.keys).map { "; did you mean '\($0)'?" } ?? ""))
        }
        guard let fromText = group.value("from") else { throw ConfigurationError("\(group.file): \(title) needs from=") }
        guard let host = group.value("host") else { throw ConfigurationError("\(group.file): \(title) needs host=") }
        let from: Mailbox
        do { from = try Mailbox(parsing: fromText) } catch { throw ConfigurationError("\(group.file(of: "from")): from=: \(error.message)") }
        let port = try group.value("port").map { (text) throws(ConfigurationError) in try Self.port(text, group.file(of: "port")) }
        let security: SMTPServer.Security
        if let text = group.value("security") {
            guard let parsed = SMTPServer.Security(rawValue: text) else {
                throw ConfigurationError("\(group.file(of: "security")): security=\(text): must be tls, starttls or none")
            }
            security = parsed
        } else {
            security = port == 465 ? .tls : .starttls
        }
        var allowPlaintext = false
        if let text = group.value("allow-plaintext") {
            guard text == "true" || text == "false" else {
                throw ConfigurationError("\(group.file(of: "allow-plaintext")): allow-plaintext=\(text): must be true or false")
            }
            allowPlaintext = text == "true"
        }
        var password = PasswordSource.none
        let inline = group.setting("password")
        // Others can read the password whether or not password-command= wins over it.
        if let inline {
            try Self.checkPrivate(inline.file, mode: modes[inline.file] ?? 0o077, why: "it holds password=")
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
                throw ConfigurationError("\(group.file(of: "timeout")): timeout=\(text): must be a number of seconds from 1 to 3600")
            }
            server.connectTimeout = seconds
            server.stallTimeout = seconds
        }
        // A mistake of the file, found when it is read: a link then goes to the mail
        // program as for any unusable account, rather than asking to send what the
        // transport would refuse.
        if let refusal = server.plainTextRefusal { throw ConfigurationError("\(group.file(of: "security")): \(refusal)") }
        self.init(name: name, from: from, server: server, password: password, source: group.file)
    }

    static func port(_ text: String, _ path: String) throws(ConfigurationError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw ConfigurationError("\(path): port=\(text): must be a number from 1 to 65535")
        }
        return port
    }

    /// A file holding a password must be readable by its owner alone (as msmtp demands).
    static func checkPrivate(_ path: String, mode: UInt32, why: String) throws(ConfigurationError) {
        if mode & 0o077 != 0 {
            let bits = String(mode & 0o777, radix: 8)
            throw ConfigurationError("\(path): refusing to read a password from a file others can read (mode \(bits); run chmod 600 \(path)), since \(why)")
        }
    }
}
