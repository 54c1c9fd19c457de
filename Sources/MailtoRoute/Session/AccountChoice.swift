import DesktopIntegration
import SMTPTransport

/// One account as a person chooses among them (the compose sheet's From, `check`'s list):
/// its name, who it sends as, where it comes from, and whether it can send now.
public struct AccountChoice: Sendable, Equatable {
    /// Whether the account's credentials can be had now.
    public enum Credentials: Sendable, Equatable {
        /// A password or token came, without a terminal.
        case available
        /// The server takes mail without a login.
        case notNeeded
        /// None came: why (a password command that failed, a locked keyring, GNOME Online
        /// Accounts that cannot be reached).
        case unavailable(String)
        /// GNOME Online Accounts: the person must sign in again (the server refused the
        /// credential GOA has, or GOA itself says so): why.
        case signInNeeded(String)
        /// Not asked (`accountChoices(checkingCredentials: false)`), or the account has a
        /// mistake (`problem`).
        case notChecked
    }

    /// What `RouteRequest.account`, `send --account` and `default=` take.
    public var name: String
    /// `Jane Doe <jane@example.org>`; `nil` when the account has a mistake before that.
    public var from: String?
    /// `jane@example.org`.
    public var address: String?
    /// Where it comes from, as a person reads it: a file, or `GNOME Online Accounts (Google)`.
    public var origin: String
    /// `config`, `msmtprc` or `goa`.
    public var originKind: String
    /// `host:port`.
    public var server: String?
    /// The account that sends when none is chosen.
    public var isDefault: Bool
    /// The account's mistake: it cannot send at all until it is mended.
    public var problem: String?
    public var credentials: Credentials

    /// Whether a message sent through it now would go (its credentials may still be
    /// refused by the server).
    public var canSend: Bool {
        guard problem == nil else { return false }
        switch credentials {
        case .available, .notNeeded, .notChecked: return true
        case .unavailable, .signInNeeded: return false
        }
    }
}

extension Session {
    /// Every account as a person chooses among them, in `accounts`' order; with
    /// `checkingCredentials`, each one's credentials are asked for now (a password command
    /// runs within `options.passwordCommandTimeout`, GNOME Online Accounts is asked for a token),
    /// with no prompt, nothing remembered and nobody notified.
    public func accountChoices(checkingCredentials: Bool) -> [AccountChoice] {
        let defaultName = try? defaultAccountSetup?.get().name
        return accounts.map { setup in
            var choice = AccountChoice(name: setup.name, origin: setup.originText, originKind: setup.originKind,
                                       isDefault: setup.name == defaultName, credentials: .notChecked)
            switch setup.account {
            case .failure(let mistake):
                choice.problem = mistake.message
            case .success(let account):
                choice.from = account.from.readable
                choice.address = account.from.address
                choice.server = account.server.address
                if checkingCredentials { choice.credentials = credentials(of: account).state }
            }
            return choice
        }
    }

    /// The account to send from chosen in the compose sheet: remembered, for the sheet to
    /// offer it first next time (`preferredAccountName`).
    public func rememberLastUsed(_ name: String) {
        accountMemory.rememberLastUsed(name)
    }

    /// Whether `account`'s credentials can be had now, and its server with them when they
    /// can (for `check`'s live test): asked as an attempt would, but with no prompt,
    /// nothing remembered and nobody notified.
    public func credentials(of account: Account) -> (state: AccountChoice.Credentials, server: SMTPServer?) {
        guard let online = account.onlineAccount else {
            guard account.server.user != nil else { return (.notNeeded, account.server) }
            do {
                return (.available, try server(for: account, mayPrompt: false))
            } catch {
                return (.unavailable(Failure(error, otherwise: .configuration).message), nil)
            }
        }
        if online.auth == .oauth2, online.attentionNeeded {
            return (.signInNeeded(tr("GNOME Online Accounts says %@ needs attention", online.presentationIdentity)), nil)
        }
        var server = account.server
        let credential: String
        do throws(OnlineAccountsError) {
            if online.auth == .oauth2 {
                credential = try services.onlineAccounts.accessToken(for: online)
                server.bearerToken = credential
            } else {
                credential = try services.onlineAccounts.smtpPassword(for: online)
                server.password = credential
            }
        } catch {
            return (error.kind == .notAuthorized ? .signInNeeded(error.message) : .unavailable(error.message), nil)
        }
        if let refused = accountMemory.refusal(of: account.name), refused.fingerprint == secretFingerprint(credential) {
            return (.signInNeeded(tr("%@ (since %@)", refused.reason, refused.since.iso8601)), nil)
        }
        return (.available, server)
    }
}

extension Session {
    /// What to tell the person about `name`, an account of GNOME Online Accounts that must
    /// be signed in again (for the desktop service's notification, `SheetService.askToSignIn`);
    /// `nil` when it is no such account.
    public func signInRequest(for name: String) -> SignInRequest? {
        guard let account = try? accounts.first(where: { $0.name == name })?.account.get(),
              let online = account.onlineAccount else { return nil }
        let reason = accountMemory.refusal(of: name)?.reason ?? tr("the server refused the sign-in of %@", account.from.address)
        return SignInRequest(account: name, address: account.from.address,
                             provider: online.providerName.isEmpty ? online.providerType : online.providerName,
                             onlineAccountID: online.id, reason: reason)
    }
}
