#if canImport(Glibc)
import Glibc
#endif
import MIMEMessage
import SMTPTransport

/// The default account of msmtp's configuration, the de-facto SMTP setup on Linux: read
/// when mailto-route has no config file of its own. Only the settings that matter for
/// submission are taken; `tls_certcheck off` is refused (mailto-route always verifies).
enum Msmtprc {
    static var paths: [String] {
        let home = AccountConfiguration.environment("HOME") ?? ""
        let config = AccountConfiguration.environment("XDG_CONFIG_HOME") ?? home + "/.config"
        return [home + "/.msmtprc", config + "/msmtp/config"]
    }

    static func defaultAccount() throws(ConfigurationError) -> Account? {
        guard let path = paths.first(where: { access($0, F_OK) == 0 }) else { return nil }
        guard let text = readText(path) else {
            throw ConfigurationError("\(path): \(String(cString: strerror(errno)))")
        }
        return try parse(text, path: path)
    }

    static func parse(_ text: String, path: String) throws(ConfigurationError) -> Account? {
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
        let name = defaultAlias ?? (accounts["default"] != nil ? "default" : (order.count == 1 ? order.first : nil))
        guard let name, let settings = accounts[name] else { return nil }
        // As msmtp: a password anywhere in the file, in whichever account and whatever
        // else that account sets (passwordeval), is one others must not read.
        if holdsPassword { try AccountConfiguration.checkPrivate(path, why: "it holds a password") }
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
        let port = try settings["port"].map { (text) throws(ConfigurationError) in try AccountConfiguration.parsePort(text, place) }
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

/// A whole small text file (a config file), read with open/read; `nil` with errno set.
func readText(_ path: String) -> String? {
    readWholeFile(path).map { String(decoding: $0, as: UTF8.self) }
}

/// A whole file of at most 64 MB (a config file, a message body from `--body-file` or
/// standard input as `/dev/stdin`; attachments stream instead), read with open/read;
/// `nil` with errno set.
public func readWholeFile(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
        let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if got < 0, errno == EINTR { continue }
        guard got >= 0 else { return nil }
        if got == 0 { break }
        out += chunk[0..<got]
        if out.count > 64 * 1024 * 1024 { errno = EFBIG; return nil }
    }
    return out
}
