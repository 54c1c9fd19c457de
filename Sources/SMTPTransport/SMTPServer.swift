/// Where and how to submit: an account's server settings, without the message.
public struct SMTPServer: Sendable, Equatable {
    public enum Security: String, Sendable, CaseIterable {
        /// Implicit TLS (`smtps://`, port 465).
        case tls
        /// STARTTLS, required: a server that does not offer it gets nothing (CURLUSESSL_ALL).
        case starttls
        /// Plain text: refused unless the host is loopback or `allowPlaintext` is set.
        case none
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var allowPlaintext: Bool
    /// An extra trust anchor (PEM), added to the system's.
    public var caFile: String?
    public var user: String?
    /// Never printed: `description` leaves it out.
    public var password: String?
    /// An OAuth 2.0 access token (GNOME Online Accounts'), sent instead of a password with
    /// SASL XOAUTH2 or OAUTHBEARER, never with another mechanism. Never printed.
    public var bearerToken: String?
    public var connectTimeout: Int
    /// No byte moving for this long ends the transfer (a large attachment may take long
    /// in total, so there is no overall limit).
    public var stallTimeout: Int

    public init(
        host: String, port: Int? = nil, security: Security = .starttls, allowPlaintext: Bool = false,
        caFile: String? = nil, user: String? = nil, password: String? = nil,
        connectTimeout: Int = 30, stallTimeout: Int = 60, bearerToken: String? = nil
    ) {
        self.host = host
        self.port = port ?? (security == .tls ? 465 : 587)
        self.security = security
        self.allowPlaintext = allowPlaintext
        self.caFile = caFile
        self.user = user
        self.password = password
        self.bearerToken = bearerToken
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
    }

    /// `host:port`, as the report shows it.
    public var address: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Why this server may not be used, or `nil`: `security=none` off loopback without
    /// `allowPlaintext` would send the password and message in plain text (docs/design.md rule
    /// 7). Checked when an account is read and again before any connection.
    public var plainTextRefusal: String? {
        guard security == .none, !isLoopback, !allowPlaintext else { return nil }
        return "security=none would send the password and message in plain text to \(host); use tls or starttls (or allow-plaintext=true)"
    }

    /// `localhost`, 127.0.0.0/8 and ::1: plain text there never leaves the machine.
    public var isLoopback: Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        // Only literal names: `*.localhost` may go to DNS (glibc without nss-myhostname)
        // and come back with an address that is not this machine.
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}

extension SMTPServer: CustomStringConvertible {
    public var description: String {
        "\(security.rawValue)://\(address)" + (user.map { " as \($0)" } ?? "")
    }
}
