public import DesktopIntegration
import MailtoCore
public import SMTPTransport

/// A mail domain's autoconfig file (Thunderbird's `config-v1.1.xml`): the SMTP servers of
/// its `outgoingServer type="smtp"` elements, and the IMAP servers of its
/// `incomingServer type="imap"` ones, in the file's order.
public enum Autoconfig {
    /// Where Thunderbird looks for a domain's file, in its order: the domain's own
    /// `autoconfig.` host (told the address, as Thunderbird does), then its well-known path.
    public static func urls(address: String, domain: String) -> [String] {
        [
            "https://autoconfig.\(domain)/mail/config-v1.1.xml?emailaddress=\(PercentEncoding.unreservedOnly(address))",
            "https://\(domain)/.well-known/autoconfig/mail/config-v1.1.xml",
        ]
    }

    /// One SMTP server of the file.
    public struct Server: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var security: SMTPServer.Security
        /// The login, with `%EMAILADDRESS%`, `%EMAILLOCALPART%` and `%EMAILDOMAIN%` filled in.
        public var user: String?
        /// It names OAuth2 as its only way to log in: a password will not do.
        public var oauthOnly: Bool
    }

    /// The SMTP servers `text` lists for `address` (the IMAP servers with `imap`). Servers
    /// in plain text are left out (docs/design.md rule 7: TLS by default), as are ones
    /// without a host or with a port out of range. Throws (kind `input`) when the file is
    /// not well-formed XML.
    public static func servers(in text: String, address: String, url: String, imap: Bool = false) throws(DesktopError) -> [Server] {
        let root = try MarkupElement.parse(text, path: url)
        let providers = root.name == "clientConfig" ? root.children("emailProvider") : []
        let localPart = address.split(separator: "@", omittingEmptySubsequences: false).dropLast().joined(separator: "@")
        let domain = address.split(separator: "@").last.map(String.init) ?? ""
        var servers: [Server] = []
        for provider in providers {
            for element in provider.children(imap ? "incomingServer" : "outgoingServer")
            where element.attributes["type"] == (imap ? "imap" : "smtp") {
                guard let host = element.childText("hostname"), !host.isEmpty,
                      let port = element.childText("port").flatMap({ Int($0) }), (1...65535).contains(port)
                else { continue }
                let security: SMTPServer.Security
                switch element.childText("socketType")?.asciiUppercased() {
                case "SSL": security = .tls
                case "STARTTLS": security = .starttls
                default: continue
                }
                let user = element.childText("username").map {
                    $0.replacing("%EMAILADDRESS%", with: address).replacing("%EMAILLOCALPART%", with: localPart)
                        .replacing("%EMAILDOMAIN%", with: domain)
                }
                let methods = element.children("authentication").map { String($0.text.filter { $0 != "\n" }).trimmingSpaces() }
                let oauthOnly = !methods.isEmpty && methods.allSatisfy { $0 == "OAuth2" }
                servers.append(Server(host: host, port: port, security: security, user: user.flatMap { $0.isEmpty ? nil : $0 },
                                      oauthOnly: oauthOnly))
            }
        }
        return servers
    }
}
