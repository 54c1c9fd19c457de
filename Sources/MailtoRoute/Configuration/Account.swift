#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
public import MIMEMessage
public import SMTPTransport

/// The sending account: who the message is from and the server that submits it. Read
/// fresh for every send (never cached: DESIGN.md, "evaluated at the moment of routing").
public struct Account: Sendable {
    public var from: Mailbox
    /// The server; `password` is filled in by `resolvePassword()`, not by loading.
    public var server: SMTPServer
    public var password: PasswordSource
    /// The file it came from, for messages.
    public var source: String

    public enum PasswordSource: Sendable, Equatable {
        /// With a user: the Secret Service, under msmtp's attributes.
        case none
        /// `password-command=` / msmtp's `passwordeval`: run without a terminal.
        case command(String)
        /// `password=` in a file only its owner can read (checked when loading).
        case inline(String)
    }

    /// The server with its password, from the account's password source; a
    /// password-command gets `commandTimeout` seconds.
    public func serverWithPassword(commandTimeout: Double = PasswordCommand.timeoutSeconds) throws(ConfigurationError) -> SMTPServer {
        var server = server
        switch password {
        case .none:
            guard let user = server.user else { break }
            // msmtp's attributes, so that a password stored for msmtp (or with
            // `secret-tool store --label=... host H service smtp user U`) is found.
            let attributes = ["host": server.host, "service": "smtp", "user": user]
            let found: String?
            do {
                // A locked keyring is unlocked through its own prompt when there is a display.
                let display = ["DISPLAY", "WAYLAND_DISPLAY"].compactMap { name in
                    AccountConfiguration.environment(name).map { (name, $0) }
                }
                found = try SecretService.lookup(
                    attributes, mayPrompt: SecretService.canPrompt(in: Dictionary(uniqueKeysWithValues: display)))
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

/// Where the account comes from: `$XDG_CONFIG_HOME/mailto-route/config`, else the default
/// account of `~/.msmtprc`.
public enum AccountConfiguration {
    /// The config file's path (it may not exist).
    public static var configPath: String {
        if let config = environment("XDG_CONFIG_HOME"), config.hasPrefix("/") {
            return config + "/mailto-route/config"
        }
        return (environment("HOME") ?? "") + "/.config/mailto-route/config"
    }

    /// The account, or `nil` when neither file sets one up. Throws one line per mistake.
    public static func load() throws(ConfigurationError) -> Account? {
        let path = configPath
        if access(path, F_OK) == 0 {
            return try fromKeyFile(path)
        }
        return try Msmtprc.defaultAccount()
    }

    static let accountKeys: Set<String> = [
        "from", "host", "port", "security", "user", "password", "password-command", "ca-file", "allow-plaintext",
        "timeout",
    ]

    /// The `[account]` group of a mailto-route config file (DESIGN.md "Files").
    static func fromKeyFile(_ path: String) throws(ConfigurationError) -> Account? {
        let loaded: KeyFile?
        do { loaded = try KeyFile.load(path) } catch { throw ConfigurationError(error.message) }
        guard let file = loaded, file.groups.contains("account") else { return nil }
        for key in file.keys(in: "account") where !accountKeys.contains(key) {
            throw ConfigurationError("\(path): unknown key '\(key)' in [account]")
        }
        func value(_ key: String) -> String? {
            file.string("account", key).map { $0.trimmingSpaces() }.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let fromText = value("from") else { throw ConfigurationError("\(path): [account] needs from=") }
        guard let host = value("host") else { throw ConfigurationError("\(path): [account] needs host=") }
        let from: Mailbox
        do { from = try Mailbox(parsing: fromText) } catch { throw ConfigurationError("\(path): from=: \(error.message)") }
        let port = try value("port").map { (text) throws(ConfigurationError) in try parsePort(text, path) }
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
        var password = Account.PasswordSource.none
        let inline = file.string("account", "password")
        // Others can read the password whether or not password-command= wins over it.
        if inline != nil { try checkPrivate(path, why: "it holds password=") }
        if let command = value("password-command") {
            password = .command(command)
        } else if let inline {
            password = .inline(inline)
        }
        let caFile = value("ca-file")
        if let caFile, access(caFile, R_OK) != 0 {
            throw ConfigurationError("\(path): ca-file=\(caFile): \(String(cString: strerror(errno)))")
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
        return Account(from: from, server: server, password: password, source: path)
    }

    static func parsePort(_ text: String, _ path: String) throws(ConfigurationError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw ConfigurationError("\(path): port=\(text): must be a number from 1 to 65535")
        }
        return port
    }

    /// A file holding a password must be readable by its owner alone (as msmtp demands).
    static func checkPrivate(_ path: String, why: String) throws(ConfigurationError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw ConfigurationError("\(path): \(String(cString: strerror(errno)))") }
        if info.st_mode & 0o077 != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw ConfigurationError("\(path): refusing to read a password from a file others can read (mode \(mode); run chmod 600 \(path)), since \(why)")
        }
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
