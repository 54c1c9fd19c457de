import MailtoRoute
import Outbox
import SMTPTransport

/// The account a message is sent from: where it comes from, its server, its password, and
/// the live test of the server (unless `--offline`).
struct AccountSection: CheckSection {
    let account: CheckReport.AccountFacts
    let live: SMTPProbe?
    /// The config file a click reads, named when there is no account.
    let configFile: String

    var title: String { "Account" }

    var rows: [(label: String, value: String)] {
        var rows: [(String, String)] = []
        if let source = account.source {
            rows.append(("config", source + (account.error == nil ? " (valid)" : " (not usable)")))
            if let mode = account.mode { rows.append(("permissions", mode)) }
        } else {
            rows.append(("config", "none (\(configFile) or ~/.msmtprc)"))
        }
        if let error = account.error { rows.append(("error", error)) }
        if let from = account.from { rows.append(("from", from)) }
        if let server = account.server {
            rows.append(("server", "\(server), \(account.security ?? "?")" + (account.user.map { ", user \($0)" } ?? "")))
        }
        if let source = account.passwordSource {
            var text = source
            switch account.passwordAvailable {
            case true?: text += ": yields a password without a terminal"
            case false?: text += ": no password (\(account.passwordError ?? "?"))"
            case nil: text += source == "none" ? " (no login)" : ""
            }
            rows.append(("password", text))
        }
        rows.append(("live test", liveText))
        if let live, !live.capabilities.isEmpty { rows.append(("capabilities", live.capabilities.joined(separator: ", "))) }
        return rows
    }

    private var liveText: String {
        guard let live else {
            return account.usable ? "not run (--offline)" : "not run (no usable account)"
        }
        var steps = [live.connected ? "connected" : "not connected"]
        if live.connected {
            steps.append(live.encrypted ? (account.security == "tls" ? "TLS" : "STARTTLS") : "no TLS")
            switch live.authenticated {
            case true?: steps.append("AUTH accepted")
            case false?: steps.append("AUTH refused")
            case nil: break
            }
        }
        var text = "\(live.server): " + steps.joined(separator: ", ") + " (\(live.milliseconds) ms)"
        if let error = live.error { text += ": \(error.message)" }
        return text
    }

    var jsonMembers: [(String, JSON)] {
        let password: JSON = .object([
            ("source", .string(account.passwordSource)), ("available", nullable(account.passwordAvailable, JSON.bool)),
            ("error", .string(account.passwordError)),
        ])
        let accountJSON: JSON = .object([
            ("configured", .bool(account.configured)), ("source", .string(account.source)),
            ("valid", .bool(account.configured && account.error == nil)), ("error", .string(account.error)),
            ("mode", .string(account.mode)), ("from", .string(account.from)), ("server", .string(account.server)),
            ("security", .string(account.security)), ("user", .string(account.user)), ("password", password),
        ])
        return [("account", accountJSON), ("live", nullable(live, Self.liveJSON))]
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
        /// Where the account comes from (the config file or `~/.msmtprc`), `nil`: none.
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
        /// `password-command`, `secret-service`, `password=`, `none`.
        public var passwordSource: String?
        /// Whether a password came without a terminal; `nil` when none is needed.
        public var passwordAvailable: Bool?
        public var passwordError: String?

        public var configured: Bool { source != nil || error != nil }
        public var usable: Bool { source != nil && error == nil && passwordError == nil }
    }
}

extension CheckReport {
    var accountSection: AccountSection { AccountSection(account: account, live: live, configFile: configFile) }
}

extension Check {
    /// Fills in the account; returns its server with the password when it is usable,
    /// for the live test (the password goes no further).
    static func gatherAccount(into report: inout CheckReport, session: Session) -> SMTPServer? {
        let configuration = session.configuration
        if let file = configuration.accountFile {
            report.account.mode = String(file.mode & 0o777, radix: 8)
        }
        let account: Account
        switch configuration.account {
        case nil:
            return nil
        case .failure(let mistake)?:
            report.account.error = mistake.message
            report.account.source = configuration.accountFile?.path ?? configuration.configFile?.path
            return nil
        case .success(let loaded)?:
            account = loaded
        }
        report.account.source = account.source
        report.account.from = account.from.readable
        report.account.fromAddress = account.from.address
        report.account.server = account.server.address
        report.account.security = account.server.security.rawValue
        report.account.user = account.server.user
        switch account.password {
        case .command: report.account.passwordSource = "password-command"
        case .inline: report.account.passwordSource = "password="
        case .none: report.account.passwordSource = account.server.user == nil ? "none" : "secret-service"
        }
        do {
            session.passwordCommandTimeout = passwordCommandSeconds
            // A check never pops up a prompt: it says the keyring is locked.
            session.passwordMayPrompt = false
            let server = try session.server()
            if account.server.user != nil { report.account.passwordAvailable = true }
            return server
        } catch {
            report.account.passwordAvailable = false
            report.account.passwordError = error.message
            return nil
        }
    }
}
