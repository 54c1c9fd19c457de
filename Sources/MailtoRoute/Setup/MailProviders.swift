public import SMTPTransport

/// The large mail providers, built in: where a domain with neither SRV records nor an
/// autoconfig file of its own submits (Thunderbird's ISPDB holds the same), and what each
/// needs besides the account's password (docs/accounts.md "Setting up an account").
public struct MailProvider: Sendable, Equatable {
    /// What a password can do with it.
    public enum Login: Sendable, Equatable {
        /// The account's own password.
        case password
        /// Only a password made for one program (an "app password"), never the account's own.
        case appPassword
        /// No password over SMTP at all: OAuth2 only, which GNOME Online Accounts holds.
        case onlineAccountsOnly
    }

    public var name: String
    public var domains: [String]
    public var host: String
    public var port: Int
    public var security: SMTPServer.Security
    public var login: Login
    /// What to do first, in the user's language: where to make an app password, or a
    /// setting to turn on.
    public var note: String?
    /// Its IMAP server (implicit TLS, 993, as each provider publishes it), where a webmail
    /// handoff stores its drafts (`imap-host=`).
    public var imapHost: String? = nil

    /// The provider of `domain` (lower case), if it is one of the table's.
    public static func of(domain: String) -> MailProvider? {
        let domain = domain.asciiLowercased()
        return table.first { $0.domains.contains(domain) }
    }

    /// The table. Hosts and ports are the providers' published submission settings.
    public static var table: [MailProvider] {
        [
            MailProvider(
                name: "Gmail", domains: ["gmail.com", "googlemail.com"], host: "smtp.gmail.com", port: 465,
                security: .tls, login: .appPassword,
                note: tr("Gmail takes an app password (Google Account, Security, App passwords, with 2-Step Verification on), not your Google password; or add the account in GNOME Online Accounts"), imapHost: "imap.gmail.com"),
            MailProvider(
                name: "Outlook.com",
                domains: ["outlook.com", "hotmail.com", "live.com", "msn.com", "hotmail.co.uk", "hotmail.fr", "hotmail.de",
                          "outlook.de", "outlook.fr", "live.de", "live.fr", "live.co.uk"],
                host: "smtp-mail.outlook.com", port: 587, security: .starttls, login: .onlineAccountsOnly,
                note: tr("Outlook.com has taken no password over SMTP since 16 September 2024: add the account in GNOME Online Accounts (Microsoft)"), imapHost: "outlook.office365.com"),
            MailProvider(
                name: "Yahoo Mail",
                domains: ["yahoo.com", "ymail.com", "rocketmail.com", "yahoo.co.uk", "yahoo.de", "yahoo.fr"],
                host: "smtp.mail.yahoo.com", port: 465, security: .tls, login: .appPassword,
                note: tr("Yahoo Mail takes an app password (Account security, Generate app password), not your Yahoo password"), imapHost: "imap.mail.yahoo.com"),
            MailProvider(
                name: "AOL Mail", domains: ["aol.com"], host: "smtp.aol.com", port: 465, security: .tls, login: .appPassword,
                note: tr("AOL Mail takes an app password (Account security, Generate app password), not your AOL password"), imapHost: "imap.aol.com"),
            MailProvider(
                name: "iCloud Mail", domains: ["icloud.com", "me.com", "mac.com"], host: "smtp.mail.me.com", port: 587,
                security: .starttls, login: .appPassword,
                note: tr("iCloud Mail takes an app-specific password (appleid.apple.com, Sign-In and Security), not your Apple Account password"), imapHost: "imap.mail.me.com"),
            MailProvider(
                name: "GMX", domains: ["gmx.net", "gmx.de", "gmx.at", "gmx.ch"], host: "mail.gmx.net", port: 465,
                security: .tls, login: .password,
                note: tr("GMX sends only after POP3/IMAP access is turned on in its web mail's settings"), imapHost: "imap.gmx.net"),
            MailProvider(
                name: "GMX", domains: ["gmx.com", "gmx.us", "gmx.co.uk", "gmx.fr"], host: "mail.gmx.com", port: 465,
                security: .tls, login: .password,
                note: tr("GMX sends only after POP3/IMAP access is turned on in its web mail's settings"), imapHost: "imap.gmx.com"),
            MailProvider(
                name: "WEB.DE", domains: ["web.de"], host: "smtp.web.de", port: 587, security: .starttls, login: .password,
                note: tr("WEB.DE sends only after POP3/IMAP access is turned on in its web mail's settings"), imapHost: "imap.web.de"),
            MailProvider(
                name: "Posteo", domains: ["posteo.de", "posteo.net", "posteo.eu", "posteo.org", "posteo.at", "posteo.ch"],
                host: "posteo.de", port: 465, security: .tls, login: .password, note: nil, imapHost: "posteo.de"),
            MailProvider(
                name: "mailbox.org", domains: ["mailbox.org"], host: "smtp.mailbox.org", port: 465, security: .tls,
                login: .password, note: nil, imapHost: "imap.mailbox.org"),
            MailProvider(
                name: "Fastmail", domains: ["fastmail.com", "fastmail.fm", "fastmail.org", "fastmail.net"],
                host: "smtp.fastmail.com", port: 465, security: .tls, login: .appPassword,
                note: tr("Fastmail takes an app password (Settings, Privacy & Security, App passwords), not your Fastmail password"), imapHost: "imap.fastmail.com"),
            MailProvider(
                name: "Zoho Mail", domains: ["zoho.com", "zohomail.com"], host: "smtp.zoho.com", port: 465, security: .tls,
                login: .password, note: nil, imapHost: "imap.zoho.com"),
            MailProvider(
                name: "Telekom Mail", domains: ["t-online.de", "magenta.de"], host: "securesmtp.t-online.de", port: 465,
                security: .tls, login: .password,
                note: tr("Telekom Mail takes its own e-mail password (set in the Telekom Mail Center), not your Telekom login password"), imapHost: "secureimap.t-online.de"),
        ]
    }
}
