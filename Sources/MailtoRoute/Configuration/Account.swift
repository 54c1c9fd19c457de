#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
public import MIMEMessage
public import SMTPTransport

/// The sending account: who the message is from and the server that submits it, read
/// once per run with the rest of the configuration (`Configuration`).
public struct Account: Sendable {
    public var from: Mailbox
    /// The server; `password` is filled in by `resolvePassword()`, not by loading.
    public var server: SMTPServer
    public var password: PasswordSource
    /// The file it came from, for messages.
    public var source: String

    public init(from: Mailbox, server: SMTPServer, password: PasswordSource, source: String) {
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
    }

    /// The server with its password, from the account's password source; a
    /// password-command gets `commandTimeout` seconds; a locked keyring is unlocked through
    /// its own prompt when `mayPrompt` (there is a display to show it on).
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
        }
        return server
    }
}

extension Account {
    /// The keys of `[account]`: any other is a mistake, named with the closest of these.
    public static let keys: Set<String> = [
        "from", "host", "port", "security", "user", "password", "password-command", "ca-file", "allow-plaintext",
        "timeout",
    ]

    /// The `[account]` group of a mailto-route config file (docs/design.md "Files"), read from
    /// `path`, whose permission bits are `mode`. Throws one line per mistake.
    init(_ file: KeyFile, path: String, mode: UInt32) throws(ConfigurationError) {
        for key in file.keys(in: "account") where !Self.keys.contains(key) {
            throw ConfigurationError("\(path): unknown key '\(key)' in [account]" + (closest(to: key, among: Self.keys).map { "; did you mean '\($0)'?" } ?? ""))
        }
        func value(_ key: String) -> String? {
            file.string("account", key).map { $0.trimmingSpaces() }.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let fromText = value("from") else { throw ConfigurationError("\(path): [account] needs from=") }
        guard let host = value("host") else { throw ConfigurationError("\(path): [account] needs host=") }
        let from: Mailbox
        do { from = try Mailbox(parsing: fromText) } catch { throw ConfigurationError("\(path): from=: \(error.message)") }
        let port = try value("port").map { (text) throws(ConfigurationError) in try Self.port(text, path) }
        let security: SMTPServer.Security
        if let text = value("security") {
            guard let parsed = SMTPServer.Security(rawValue: text) else {
                throw ConfigurationError("\(path): security=\(text): must be tls, starttls or none")
            }
            security = parsed
        } else {
            security = port == 465 ? .tls : .starttls
        }
        var allowPlaintext = false
        if let text = value("allow-plaintext") {
            guard text == "true" || text == "false" else {
                throw ConfigurationError("\(path): allow-plaintext=\(text): must be true or false")
            }
            allowPlaintext = text == "true"
        }
        var password = PasswordSource.none
        let inline = file.string("account", "password")
        // Others can read the password whether or not password-command= wins over it.
        if inline != nil { try Self.checkPrivate(path, mode: mode, why: "it holds password=") }
        if let command = value("password-command") {
            password = .command(command)
        } else if let inline {
            password = .inline(inline)
        }
        let caFile = value("ca-file")
        if let caFile, access(caFile, R_OK) != 0 {
            throw ConfigurationError("\(path): ca-file=\(caFile): \(systemErrorText(errno))")
        }
        var server = SMTPServer(host: host, port: port, security: security, allowPlaintext: allowPlaintext,
                                caFile: caFile, user: value("user"))
        if let text = value("timeout") {
            guard let seconds = Int(text), (1...3600).contains(seconds) else {
                throw ConfigurationError("\(path): timeout=\(text): must be a number of seconds from 1 to 3600")
            }
            server.connectTimeout = seconds
            server.stallTimeout = seconds
        }
        // A mistake of the file, found when it is read: a link then goes to the mail
        // program as for any unusable account, rather than asking to send what the
        // transport would refuse.
        if let refusal = server.plainTextRefusal { throw ConfigurationError("\(path): \(refusal)") }
        self.init(from: from, server: server, password: password, source: path)
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
