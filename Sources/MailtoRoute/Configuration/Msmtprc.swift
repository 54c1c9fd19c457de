#if canImport(Glibc)
import Glibc
#endif
import MIMEMessage
import SMTPTransport

/// The accounts of msmtp's configuration, the de-facto SMTP setup on Linux. Only the
/// settings that matter for submission are taken; `tls_certcheck off` is refused
/// (mailto-route always verifies).
enum Msmtprc {
    /// The prefix of the names of msmtp's accounts (`msmtp:NAME`).
    static let prefix = "msmtp:"

    /// Every account of `text`, read from `path` with permission bits `mode`: the one msmtp
    /// uses by default first (`account default : NAME`, else the account named `default`,
    /// else the first), then the others in the file's order; each usable or with its own
    /// mistake. Throws a mistake of the whole file (a password others can read). `caFile`:
    /// the trust anchors of an account that names none (`SSL_CERT_FILE`).
    static func parse(_ text: String, path: String, mode: UInt32, caFile: String? = nil)
        throws(ConfigurationError) -> [(name: String, account: Result<Account, ConfigurationError>)] {
        var defaults: [String: String] = [:]
        var accounts: [String: [String: String]] = [:]
        var order: [String] = []
        var defaultAlias: String?
        var current: String?
        var holdsPassword = false
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine).trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let key = String(line.prefix { $0 != " " && $0 != "\t" })
            var value = String(line.dropFirst(key.count)).trimmingSpaces()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            switch key {
            case "defaults":
                current = nil
            case "account":
                let parts = value.split(separator: ":", maxSplits: 1).map { String($0).trimmingSpaces() }
                guard let name = parts.first, !name.isEmpty else {
                    throw ConfigurationError("\(path):\(number + 1): account needs a name")
                }
                if name == "default", parts.count == 2, !parts[1].contains(",") {
                    defaultAlias = parts[1]
                    current = nil
                    continue
                }
                var settings = defaults
                if parts.count == 2 {
                    for parent in parts[1].split(separator: ",") {
                        settings.merge(accounts[String(parent).trimmingSpaces()] ?? [:]) { $1 }
                    }
                }
                accounts[name] = settings
                order.append(name)
                current = name
            default:
                if key == "password" { holdsPassword = true }
                if let current { accounts[current]?[key] = value } else { defaults[key] = value }
            }
        }
        // As msmtp: the `default` account (or the one it names), else the first.
        let first = defaultAlias.flatMap { accounts[$0] != nil ? $0 : nil } ?? (accounts["default"] != nil ? "default" : order.first)
        if let alias = defaultAlias, accounts[alias] == nil {
            throw ConfigurationError("\(path): the default account '\(alias)' is not defined")
        }
        // As msmtp: a password anywhere in the file, in whichever account and whatever
        // else that account sets (passwordeval), is one others must not read.
        if holdsPassword { try Account.checkPrivate(path, mode: mode, why: "it holds a password") }
        let names = (first.map { [$0] } ?? []) + order.filter { $0 != first }
        return names.compactMap { name in
            guard let settings = accounts[name] else { return nil }
            return (prefix + name, Result { () throws(ConfigurationError) in try account(settings, name: name, path: path, caFile: caFile) })
        }
    }

    private static func account(_ settings: [String: String], name: String, path: String, caFile: String?) throws(ConfigurationError) -> Account {
        let place = "\(path) (account \(name))"
        guard let host = settings["host"] else { throw ConfigurationError("\(place): no host") }
        guard let fromText = settings["from"] else { throw ConfigurationError("\(place): no from") }
        let from: Mailbox
        do { from = try Mailbox(parsing: fromText) } catch { throw ConfigurationError("\(place): from: \(error.message)") }
        if settings["tls_certcheck"] == "off" {
            throw ConfigurationError("\(place): tls_certcheck off is not supported; mailto-route always verifies certificates")
        }
        let tls = settings["tls"] == "on"
        let starttls = settings["tls_starttls"] != "off"
        let security: SMTPServer.Security = tls ? (starttls ? .starttls : .tls) : .none
        let port = try settings["port"].map { (text) throws(ConfigurationError) in try Account.port(text, place) }
            ?? (security == .tls ? 465 : 25)
        let auth = settings["auth"].map { $0 != "off" } ?? (settings["user"] != nil)
        var password = Account.PasswordSource.none
        if let command = settings["passwordeval"] {
            password = .command(command)
        } else if let inline = settings["password"] {
            password = .inline(inline)
        }
        let server = SMTPServer(host: host, port: port, security: security, caFile: settings["tls_trust_file"] ?? caFile,
                                user: auth ? settings["user"] : nil)
        // msmtprc has no allow-plaintext: plain text goes to loopback only.
        if server.plainTextRefusal != nil {
            throw ConfigurationError("\(place): tls off would send the password and message in plain text to \(host); set tls on")
        }
        return Account(name: prefix + name, from: from, server: server, password: auth ? password : .none, source: place)
    }
}
