import DesktopIntegration
public import MailtoCore

/// An account of GNOME Online Accounts that must be signed in again: its server refused
/// its token or password, or GOA itself says so (`AttentionNeeded`, `NotAuthorized`).
/// What a notifier tells the person (`Notifier.askToSignIn`).
public struct SignInRequest: Sendable, Equatable {
    /// The account's name (`goa:ID`).
    public var account: String
    /// Its address.
    public var address: String
    /// `Google`, `IMAP and SMTP`...
    public var provider: String
    /// GNOME Online Accounts' id of the account, for GNOME Settings' panel.
    public var onlineAccountID: String
    /// What refused it, and how.
    public var reason: String

    public init(account: String, address: String, provider: String, onlineAccountID: String, reason: String) {
        self.account = account
        self.address = address
        self.provider = provider
        self.onlineAccountID = onlineAccountID
        self.reason = reason
    }

    /// The notification's title.
    public var summary: String { "Sign in again to \(address)" }

    /// The notification's lines: why, what waits, and how to mend it.
    public var details: [String] {
        ["\(reason).", "Messages from \(address) wait in the outbox until you sign in again: "
            + "Settings, Online Accounts, \(provider) (\(OnlineAccounts.settingsCommand(account: onlineAccountID).joined(separator: " ")))."]
    }
}

/// A message of an account of GNOME Online Accounts that cannot be sent now and waits in
/// the outbox: the person must sign in again (`signIn`), or GOA cannot hand out the
/// credentials now (the token service cannot be reached). Transient: the message is queued,
/// never dropped and never a draft (docs/design.md rule 3).
public struct AccountHeld: ClassifiedError, Equatable, Sendable {
    public var message: String
    /// The person must act (sign in again); else it is GOA's own passing trouble.
    public var signIn: Bool
    public var kind: ErrorKind { .transient }
    public var description: String { message }

    public init(_ message: String, signIn: Bool) {
        self.message = message
        self.signIn = signIn
    }
}
