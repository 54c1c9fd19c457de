internal import CGIO
import MailtoCore

/// A mail account of GNOME Online Accounts (`goa-daemon`), as its D-Bus objects describe it
/// (gnome-online-accounts' `data/dbus-interfaces.xml`: `org.gnome.OnlineAccounts.Account`,
/// `.Mail`, `.OAuth2Based`, `.PasswordBased`). Holds no credential: those are asked for at
/// each attempt (`OnlineAccounts.credential`).
public struct OnlineMailAccount: Sendable, Equatable {
    /// How the account signs in to its SMTP server.
    public enum Auth: String, Sendable {
        /// An OAuth 2.0 access token (`OAuth2Based.GetAccessToken`): Google, Microsoft.
        case oauth2
        /// A password in the keyring (`PasswordBased.GetPassword("smtp-password")`): IMAP and SMTP.
        case password
        /// The server takes mail without a login (`SmtpUseAuth` false).
        case none
    }

    /// `Account.Id`, such as `account_1700000000_0`: stable while the account exists.
    public var id: String
    public var objectPath: String
    /// `google`, `windows_live`, `imap_smtp`...
    public var providerType: String
    /// `Google`, `Microsoft`, `IMAP and SMTP`...
    public var providerName: String
    public var presentationIdentity: String
    /// `Account.AttentionNeeded`: GOA knows the account must be signed in again.
    public var attentionNeeded: Bool
    /// `Mail.EmailAddress`.
    public var emailAddress: String
    /// `Mail.Name`: the person's name for the From field (may be empty).
    public var name: String
    /// `Mail.SmtpHost`, which may carry `:port` (`smtp.example.org:2525`, `[::1]:25`).
    public var smtpHost: String
    /// `Mail.SmtpUseSsl`: implicit TLS.
    public var smtpUseSsl: Bool
    /// `Mail.SmtpUseTls`: STARTTLS.
    public var smtpUseTls: Bool
    /// `Mail.SmtpUserName` (for an IMAP and SMTP account, not always the address).
    public var smtpUserName: String
    /// `Mail.SmtpAcceptSslErrors`: GOA would take any certificate. mailto-route verifies
    /// all the same (docs/design.md rule 7); `check` says so.
    public var smtpAcceptSslErrors: Bool
    public var auth: Auth
    /// `Mail.ImapHost` when `Mail.ImapSupported`, else empty; may carry `:port`, as
    /// `smtpHost` does. Where a webmail handoff stores its draft (`IMAPDraftStore`).
    public var imapHost = ""
    /// `Mail.ImapUseSsl`: implicit TLS.
    public var imapUseSsl = false
    /// `Mail.ImapUseTls`: STARTTLS.
    public var imapUseTls = false
    /// `Mail.ImapUserName`.
    public var imapUserName = ""

    public init(
        id: String, objectPath: String? = nil, providerType: String, providerName: String, presentationIdentity: String,
        attentionNeeded: Bool = false, emailAddress: String, name: String = "", smtpHost: String, smtpUseSsl: Bool,
        smtpUseTls: Bool, smtpUserName: String, smtpAcceptSslErrors: Bool = false, auth: Auth
    ) {
        self.id = id
        self.objectPath = objectPath ?? OnlineAccounts.accountsPath + id
        self.providerType = providerType
        self.providerName = providerName
        self.presentationIdentity = presentationIdentity
        self.attentionNeeded = attentionNeeded
        self.emailAddress = emailAddress
        self.name = name
        self.smtpHost = smtpHost
        self.smtpUseSsl = smtpUseSsl
        self.smtpUseTls = smtpUseTls
        self.smtpUserName = smtpUserName
        self.smtpAcceptSslErrors = smtpAcceptSslErrors
        self.auth = auth
    }
}

extension OnlineMailAccount {
    /// A copy with `change` made to it.
    func with(_ change: (inout OnlineMailAccount) -> Void) -> OnlineMailAccount {
        var copy = self
        change(&copy)
        return copy
    }
}

/// What a credentials call of GNOME Online Accounts came to when it gave none.
public struct OnlineAccountsError: Error, Equatable, Sendable {
    public enum Kind: Sendable, Equatable {
        /// `org.gnome.OnlineAccounts.Error.NotAuthorized`: the provider no longer takes the
        /// account's grant; only the person can mend it, by signing in again in Settings.
        case notAuthorized
        /// Anything else (the token service cannot be reached, the daemon is gone): worth
        /// trying again later.
        case unavailable
    }

    public var kind: Kind
    /// goa-daemon's own text, or why it could not be asked.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// GNOME Online Accounts on the session bus: the one place mailto-route talks to
/// `goa-daemon`, through the project's one GDBus wrapper. As libgoa's `GoaClient` does, it
/// reads the daemon's ObjectManager (`GetManagedObjects` at `/org/gnome/OnlineAccounts`),
/// which D-Bus activates the daemon where it is installed and not running yet.
public enum OnlineAccounts {
    static let busName = "org.gnome.OnlineAccounts"
    static let rootPath = "/org/gnome/OnlineAccounts"
    static let accountsPath = "/org/gnome/OnlineAccounts/Accounts/"
    static let accountInterface = "org.gnome.OnlineAccounts.Account"
    static let mailInterface = "org.gnome.OnlineAccounts.Mail"
    static let oauth2Interface = "org.gnome.OnlineAccounts.OAuth2Based"
    static let passwordInterface = "org.gnome.OnlineAccounts.PasswordBased"
    /// The D-Bus error of a grant the provider refused (goa's `GOA_ERROR_NOT_AUTHORIZED`).
    static let notAuthorizedError = "org.gnome.OnlineAccounts.Error.NotAuthorized"
    /// The errors that mean "no GOA here": nothing changes then.
    static let absentErrors = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.Spawn",
    ]

    /// Each bus step's deadline: goa-daemon answers from memory, in milliseconds; starting
    /// it by activation takes a fraction of a second.
    public static let callTimeout: Double = 5

    /// The accounts that can send mail: each with a Mail interface (`MailDisabled` takes it
    /// away) whose `SmtpSupported` is true, ordered by id (GOA's ids grow with each account
    /// added). Empty when there is no session bus or no GOA on it. Throws only when GOA is
    /// there and does not answer within `seconds`.
    public static func mailAccounts(within seconds: Double = callTimeout) throws(DesktopError) -> [OnlineMailAccount] {
        let bus: BusConnection
        do {
            bus = try BusConnection.session(within: seconds)
        } catch let error where error.kind == .configuration {
            // No session bus at all (a script on a server, `disabled:`): no online accounts.
            return []
        }
        let reply: Variant
        do {
            reply = try bus.call(busName, rootPath, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", nil,
                                 replyType: "(a{oa{sa{sv}}})", seconds: seconds)
        } catch {
            if absentErrors.contains(where: { error.message.contains($0) }) { return [] }
            throw error
        }
        return reply.child(0).entries.compactMap { path, interfaces in
            mailAccount(path: path, interfaces: Dictionary(interfaces.entries, uniquingKeysWith: { first, _ in first }))
        }.sorted { $0.id < $1.id }
    }

    /// One object of the ObjectManager's answer, if it is an account that sends mail.
    private static func mailAccount(path: String, interfaces: [String: Variant]) -> OnlineMailAccount? {
        guard let account = interfaces[accountInterface], let mail = interfaces[mailInterface],
              mail.lookup("SmtpSupported")?.boolean == true,
              account.lookup("MailDisabled")?.boolean != true,
              let id = account.lookup("Id")?.string
        else { return nil }
        func text(_ properties: Variant, _ name: String) -> String { properties.lookup(name)?.string ?? "" }
        let auth: OnlineMailAccount.Auth = mail.lookup("SmtpUseAuth")?.boolean == false ? .none
            : interfaces[oauth2Interface] != nil ? .oauth2 : .password
        return OnlineMailAccount(
            id: id, objectPath: path, providerType: text(account, "ProviderType"),
            providerName: text(account, "ProviderName"), presentationIdentity: text(account, "PresentationIdentity"),
            attentionNeeded: account.lookup("AttentionNeeded")?.boolean ?? false,
            emailAddress: text(mail, "EmailAddress"), name: text(mail, "Name"), smtpHost: text(mail, "SmtpHost"),
            smtpUseSsl: mail.lookup("SmtpUseSsl")?.boolean ?? false, smtpUseTls: mail.lookup("SmtpUseTls")?.boolean ?? false,
            smtpUserName: text(mail, "SmtpUserName"),
            smtpAcceptSslErrors: mail.lookup("SmtpAcceptSslErrors")?.boolean ?? false, auth: auth).with { online in
                guard mail.lookup("ImapSupported")?.boolean == true else { return }
                online.imapHost = text(mail, "ImapHost")
                online.imapUseSsl = mail.lookup("ImapUseSsl")?.boolean ?? false
                online.imapUseTls = mail.lookup("ImapUseTls")?.boolean ?? false
                online.imapUserName = text(mail, "ImapUserName")
            }
    }

    /// `Account.EnsureCredentials` (which refreshes an expired token with the provider,
    /// and sets `AttentionNeeded` when the provider refuses), then
    /// `OAuth2Based.GetAccessToken`: the access token to sign in with now. Asked at each
    /// attempt and never kept: goa-daemon hands out a fresh one when the old has expired.
    public static func accessToken(_ account: OnlineMailAccount, within seconds: Double = callTimeout)
        throws(OnlineAccountsError) -> String {
        try withBus(seconds) { bus throws(OnlineAccountsError) in
            _ = try call(bus, account, accountInterface, "EnsureCredentials", nil, replyType: "(i)", seconds: seconds)
            let reply = try call(bus, account, oauth2Interface, "GetAccessToken", nil, replyType: "(si)", seconds: seconds)
            return reply.child(0).string ?? ""
        }
    }

    /// `PasswordBased.GetPassword("smtp-password")`: the SMTP password GOA keeps in the
    /// keyring. Not preceded by `EnsureCredentials`: for an IMAP and SMTP account that logs
    /// in to both servers, and a failure there (offline, say) marks the account as needing
    /// attention; the SMTP server itself is the judge of the password.
    public static func smtpPassword(_ account: OnlineMailAccount, within seconds: Double = callTimeout)
        throws(OnlineAccountsError) -> String {
        try password(account, id: "smtp-password", within: seconds)
    }

    /// `PasswordBased.GetPassword("imap-password")`: the IMAP password GOA keeps, for a
    /// webmail handoff's draft (the IMAP server is the judge of it, as above).
    public static func imapPassword(_ account: OnlineMailAccount, within seconds: Double = callTimeout)
        throws(OnlineAccountsError) -> String {
        try password(account, id: "imap-password", within: seconds)
    }

    /// `PasswordBased.GetPassword(id)`.
    private static func password(_ account: OnlineMailAccount, id: String, within seconds: Double)
        throws(OnlineAccountsError) -> String {
        try withBus(seconds) { bus throws(OnlineAccountsError) in
            let reply = try call(bus, account, passwordInterface, "GetPassword",
                                 VariantBuilder.tuple([VariantBuilder.string(id)]), replyType: "(s)",
                                 seconds: seconds)
            return reply.child(0).string ?? ""
        }
    }

    private static func withBus<Value>(
        _ seconds: Double, _ body: (BusConnection) throws(OnlineAccountsError) -> Value
    ) throws(OnlineAccountsError) -> Value {
        let bus: BusConnection
        do {
            bus = try BusConnection.session(within: seconds)
        } catch {
            throw OnlineAccountsError(.unavailable, tr("GNOME Online Accounts cannot be reached: %@", error.message))
        }
        return try body(bus)
    }

    private static func call(
        _ bus: BusConnection, _ account: OnlineMailAccount, _ interface: String, _ method: String,
        _ parameters: OpaquePointer?, replyType: String, seconds: Double
    ) throws(OnlineAccountsError) -> Variant {
        do {
            return try bus.call(busName, account.objectPath, interface, method, parameters, replyType: replyType,
                                seconds: seconds)
        } catch {
            let (name, text) = remoteError(error.message)
            throw OnlineAccountsError(name == notAuthorizedError ? .notAuthorized : .unavailable,
                                      "GNOME Online Accounts (\(method)): \(text)")
        }
    }

    /// GDBus writes a remote error as `WHAT: GDBus.Error:NAME: TEXT`: its D-Bus name, and
    /// goa-daemon's own text.
    static func remoteError(_ message: String) -> (name: String?, text: String) {
        guard let start = message.firstRange(of: "GDBus.Error:") else { return (nil, message) }
        let rest = message[start.upperBound...]
        guard let colon = rest.firstRange(of: ": ") else { return (String(rest), message) }
        return (String(rest[..<colon.lowerBound]), String(rest[colon.upperBound...]))
    }

    /// GNOME Settings' Online Accounts panel, on `account` when given: the argv that opens
    /// it (`gnome-control-center online-accounts ID`), as GNOME's own applications do to
    /// have an account signed in again.
    public static func settingsCommand(account: String?) -> [String] {
        ["gnome-control-center", "online-accounts"] + (account.map { [$0] } ?? [])
    }

    /// Starts GNOME Settings on the Online Accounts panel (`settingsCommand`), without
    /// waiting for it: wraps `g_spawn_async` (searching `PATH`, the child reaped by GLib).
    public static func openSettings(account: String?) throws(DesktopError) {
        var argv: [UnsafeMutablePointer<gchar>?] = settingsCommand(account: account).map { g_strdup($0) } + [nil]
        defer { for argument in argv { g_free(argument) } }
        var error: UnsafeMutablePointer<GError>?
        if g_spawn_async(nil, &argv, nil, G_SPAWN_SEARCH_PATH, nil, nil, nil, &error) == 0 {
            throw takeError(error, .permanent, tr("cannot open GNOME Settings' Online Accounts"))
        }
    }
}

/// A short fingerprint of a secret, to recognise it again without keeping it: the first
/// 16 hex digits of its SHA-256 (`g_compute_checksum_for_string`, transfer full).
public func secretFingerprint(_ secret: String) -> String {
    let digest = takeString(g_compute_checksum_for_string(G_CHECKSUM_SHA256, secret, -1)) ?? ""
    return String(digest.prefix(16))
}
