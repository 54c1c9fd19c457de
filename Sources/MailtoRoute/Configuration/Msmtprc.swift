#if canImport(Glibc)
import Glibc
#endif
import MIMEMessage
import SMTPTransport

/// The default account of msmtp's configuration, the de-facto SMTP setup on Linux: read
/// when mailto-route has no config file of its own. Only the settings that matter for
/// submission are taken; `tls_certcheck off` is refused (mailto-route always verifies).
enum Msmtprc {
    /// The account msmtp would use of `text`, read from `path` with permission bits `mode`.
    static func parse(_ text: String, path: String, mode: UInt32) throws(ConfigurationError) -> Account? {
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
        // As msmtp: the `default` account, or the only one; with several and none the
        // default, msmtp refuses to guess, and so does mailto-route.
        guard let name = defaultAlias ?? (accounts["default"] != nil ? "default" : order.count == 1 ? order.first : nil) else {
            if order.isEmpty { return nil }
            throw ConfigurationError(
                "\(path): \(order.count) accounts (\(order.joined(separator: ", "))) and none is the default: add 'account default : NAME', as msmtp needs too")
        }
        guard let settings = accounts[name] else {
            throw ConfigurationError("\(path): the default account '\(name)' is not defined")
        }
        // As msmtp: a password anywhere in the file, in whichever account and whatever
        // else that account sets (passwordeval), is one others must not read.
        if holdsPassword { try Account.checkPrivate(path, mode: mode, why: "it holds a password") }
        return try account(settings, name: name, path: path)
    }

    private static func account(_ settings: [String: String], name: String, path: String) throws(ConfigurationError) -> Account {
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
        let server = SMTPServer(host: host, port: port, security: security, caFile: settings["tls_trust_file"],
                                user: auth ? settings["user"] : nil)
        // msmtprc has no allow-plaintext: plain text goes to loopback only.
        if server.plainTextRefusal != nil {
            throw ConfigurationError("\(place): tls off would send the password and message in plain text to \(host); set tls on")
        }
        return Account(from: from, server: server, password: auth ? password : .none, source: place)
    }
}
