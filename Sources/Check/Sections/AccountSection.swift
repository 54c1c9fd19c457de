import MailtoRoute
import Outbox
import SMTPTransport

/// The accounts: each with where it comes from and whether its credentials can be had
/// now; then the default account, which a click sends from: where it comes from, its server,
/// its password, and the live test of the server (unless `--offline`).
struct AccountSection: CheckSection {
    let account: CheckReport.AccountFacts
    let accounts: [AccountChoice]
    /// Why GNOME Online Accounts could not be asked for its accounts, if it could not.
    let onlineAccountsProblem: String?
    let live: SMTPProbe?
    /// The config file a click reads, named when there is no account.
    let configFile: String

    var title: String { tr("Account") }

    var rows: [(label: String, value: String)] {
        var rows: [(String, String)] = accounts.map { (tr("account"), Self.describe($0)) }
        if let onlineAccountsProblem { rows.append((tr("online accounts"), onlineAccountsProblem)) }
        if let source = account.source {
            rows.append((tr("config"), source + (account.error == nil ? tr(" (valid)") : tr(" (not usable)"))))
            if let mode = account.mode { rows.append((tr("permissions"), mode)) }
        } else {
            rows.append((tr("config"), tr("none (%@, ~/.msmtprc or Settings, Online Accounts)", configFile)))
        }
        if let error = account.error { rows.append((tr("error"), error)) }
        if let from = account.from { rows.append((tr("from"), from)) }
        if let server = account.server {
            rows.append((tr("server"), "\(server), \(Self.securityText(account.security))" + (account.user.map { tr(", user %@", $0) } ?? "")))
        }
        if let imap = account.imap {
            rows.append(("IMAP", tr("%@, %@, user %@: a webmail handoff stores the whole message in its Drafts",
                                          imap.address, Self.securityText(imap.security.rawValue), imap.user ?? "?")))
        }
        if let source = account.passwordSource {
            var text = Self.passwordSourceText(source)
            switch account.passwordAvailable {
            case true?: text += tr(": yields a password without a terminal")
            case false?: text += tr(": no password (%@)", account.passwordError ?? "?")
            case nil: break
            }
            rows.append((tr("password"), text))
        }
        rows.append((tr("live test"), liveText))
        if let live, !live.capabilities.isEmpty { rows.append((tr("capabilities"), live.capabilities.joined(separator: ", "))) }
        return rows
    }

    /// `security=` for a person: the config's `none` read as a word of the report.
    static func securityText(_ security: String?) -> String {
        switch security {
        case "tls": "TLS"
        case "starttls": "STARTTLS"
        case "none": tr("not encrypted")
        default: security ?? "?"
        }
    }

    /// Where the password comes from, for a person: the JSON's word (`passwordSource`) is
    /// for programs, and "none" read as a word of the report in German.
    static func passwordSourceText(_ source: String) -> String {
        switch source {
        case "none": tr("not needed (no login)")
        case "secret-service": tr("the keyring (Secret Service)")
        case "password-command": tr("password-command")
        case "password=": tr("password= in the config file")
        case "goa-oauth2": tr("GNOME Online Accounts (sign-in token)")
        case "goa-password": tr("GNOME Online Accounts (password)")
        default: source
        }
    }

    /// `NAME (default): FROM via SERVER, from ORIGIN; CREDENTIALS`.
    static func describe(_ choice: AccountChoice) -> String {
        var text = choice.name + (choice.isDefault ? tr(" (default)") : "")
        if let problem = choice.problem { return text + tr(", from %@: not usable: %@", choice.origin, problem) }
        text += tr(": %@ via %@, from %@; ", choice.from ?? "?", choice.server ?? "?", choice.origin)
        return text + credentialsText(choice.credentials)
    }

    static func credentialsText(_ credentials: AccountChoice.Credentials) -> String {
        switch credentials {
        case .available: tr("credentials available")
        case .notNeeded: tr("no login")
        case .unavailable(let why): tr("no credentials now (%@)", why)
        case .signInNeeded(let why): tr("sign in again (%@)", why)
        case .notChecked: tr("credentials not checked")
        }
    }

    private var liveText: String {
        guard let live else {
            return account.usable ? tr("not run (--offline)") : tr("not run (no usable account)")
        }
        var steps = [live.connected ? tr("connected") : tr("not connected")]
        if live.connected {
            steps.append(live.encrypted ? (account.security == "tls" ? "TLS" : "STARTTLS") : tr("not encrypted"))
            switch live.authenticated {
            case true?: steps.append(tr("AUTH accepted"))
            case false?: steps.append(tr("AUTH refused"))
            case nil: break
            }
        }
        var text = "\(live.server): " + steps.joined(separator: ", ") + tr(" (%@ ms)", live.milliseconds)
        if let error = live.error { text += ": \(error.message)" }
        return text
    }

    var jsonMembers: [(String, JSON)] {
        let password: JSON = .object([
            ("source", .string(account.passwordSource)), ("available", nullable(account.passwordAvailable, JSON.bool)),
            ("error", .string(account.passwordError)),
        ])
        let accountJSON: JSON = .object([
            ("configured", .bool(account.configured)), ("name", .string(account.name)), ("source", .string(account.source)),
            ("valid", .bool(account.configured && account.error == nil)), ("error", .string(account.error)),
            ("mode", .string(account.mode)), ("from", .string(account.from)), ("server", .string(account.server)),
            ("security", .string(account.security)), ("user", .string(account.user)), ("password", password),
            ("imap", nullable(account.imap) { .object([("server", .string($0.address)), ("security", .string($0.security.rawValue)),
                                                       ("user", .string($0.user))]) }),
        ])
        return [("accounts", .array(accounts.map(Self.choiceJSON))), ("onlineAccountsError", .string(onlineAccountsProblem)),
                ("account", accountJSON),
                ("live", nullable(live, Self.liveJSON))]
    }

    static func choiceJSON(_ choice: AccountChoice) -> JSON {
        let (state, why): (String, String?) = switch choice.credentials {
        case .available: ("available", nil)
        case .notNeeded: ("not-needed", nil)
        case .unavailable(let why): ("unavailable", why)
        case .signInNeeded(let why): ("sign-in-needed", why)
        case .notChecked: ("not-checked", nil)
        }
        return .object([
            ("name", .string(choice.name)), ("default", .bool(choice.isDefault)), ("from", .string(choice.from)),
            ("address", .string(choice.address)), ("origin", .string(choice.origin)), ("source", .string(choice.originKind)),
            ("server", .string(choice.server)), ("usable", .bool(choice.problem == nil)), ("error", .string(choice.problem)),
            ("credentials", .object([("state", .string(state)), ("error", .string(why))])),
        ])
    }

    private static func liveJSON(_ live: SMTPProbe) -> JSON {
        let error: JSON = nullable(live.error) { .object([("kind", .string($0.kind.rawValue)), ("message", .string($0.message))]) }
        return .object([
            ("server", .string(live.server)), ("connected", .bool(live.connected)), ("tls", .bool(live.encrypted)),
            ("capabilities", .strings(live.capabilities)), ("authenticated", nullable(live.authenticated, JSON.bool)),
            ("error", error), ("milliseconds", .int(live.milliseconds)),
        ])
    }
}

extension CheckReport {
    public struct AccountFacts: Sendable {
        /// The account's name (`default`, `work`, `msmtp:NAME`, `goa:ID`).
        public var name: String?
        /// Where the account comes from (a config file, `~/.msmtprc`, GNOME Online
        /// Accounts), `nil`: none.
        public var source: String?
        /// The file's permission bits, such as `600`.
        public var mode: String?
        /// Why it cannot be read (invalid, or a password in a file others can read).
        public var error: String?
        public var from: String?
        /// The address alone, as the verdict names it.
        public var fromAddress: String?
        public var server: String?
        public var security: String?
        public var user: String?
        /// The IMAP server a webmail handoff stores its draft on (`imap-host=`, GOA's `ImapHost`).
        public var imap: SMTPServer?
        /// `password-command`, `secret-service`, `password=`, `none`, `goa-oauth2`, `goa-password`.
        public var passwordSource: String?
        /// Whether a password came without a terminal; `nil` when none is needed.
        public var passwordAvailable: Bool?
        public var passwordError: String?

        public var configured: Bool { source != nil || error != nil }
        public var usable: Bool { source != nil && error == nil && passwordError == nil }
    }
}

extension CheckReport {
    var accountSection: AccountSection {
        AccountSection(account: account, accounts: accounts, onlineAccountsProblem: onlineAccountsProblem, live: live,
                       configFile: configFile)
    }
}

extension Check {
    /// Fills in the accounts and the default one; returns the default's server with its
    /// credentials when it is usable, for the live test (they go no further).
    static func gatherAccount(into report: inout CheckReport, session: Session) -> SMTPServer? {
        report.accounts = session.accountChoices(checkingCredentials: true)
        report.onlineAccountsProblem = session.onlineAccountsProblem
        let setup: AccountSetup
        switch session.defaultAccountSetup {
        case nil:
            return nil
        case .failure(let mistake)?:
            report.account.error = mistake.message
            report.account.source = session.configuration.configFile?.path ?? session.paths.configFile
            return nil
        case .success(let found)?:
            setup = found
        }
        report.account.name = setup.name
        report.account.source = setup.originText
        switch setup.origin {
        case .config(let path), .msmtprc(let path):
            let files = session.configuration.systemFiles + [session.configuration.configFile, session.configuration.msmtprcFile].compactMap { $0 }
            if let file = files.last(where: { $0.path == path }) { report.account.mode = String(file.mode & 0o777, radix: 8) }
        case .onlineAccounts:
            break
        }
        let account: Account
        switch setup.account {
        case .failure(let mistake):
            report.account.error = mistake.message
            return nil
        case .success(let loaded):
            account = loaded
        }
        report.account.from = account.from.readable
        report.account.fromAddress = account.from.address
        report.account.server = account.server.address
        report.account.security = account.server.security.rawValue
        report.account.user = account.server.user
        report.account.imap = account.imap
        switch account.password {
        case .command: report.account.passwordSource = "password-command"
        case .inline: report.account.passwordSource = "password="
        case .none: report.account.passwordSource = account.server.user == nil ? "none" : "secret-service"
        case .onlineAccounts(let online): report.account.passwordSource = online.auth == .oauth2 ? "goa-oauth2" : "goa-password"
        }
        let (state, server) = session.credentials(of: account)
        switch state {
        case .available:
            report.account.passwordAvailable = true
        case .unavailable(let why), .signInNeeded(let why):
            report.account.passwordAvailable = false
            report.account.passwordError = why
        case .notNeeded, .notChecked:
            break
        }
        return server
    }
}
