import MIMEMessage
import SMTPTransport

extension Session {
    /// Stores `message` in the Drafts of `account`'s own mailbox (`Account.imap`), with the
    /// credentials of its IMAP server obtained now: GNOME Online Accounts' token (the one
    /// sending gets, with its memory of refusals: a token the server refused is one
    /// **Sign in again**, and not tried again; or the IMAP password it keeps for an IMAP and
    /// SMTP account), or the account's password (its password-command, `password=`, or the
    /// Secret Service under `service=imap`). Throws why it could not.
    func storeInDrafts(_ message: [UInt8], of account: Account) throws -> StoredDraft {
        guard var imap = account.imap else {
            throw ConfigurationError(tr("%@ names no IMAP server", account.name))
        }
        if let online = account.onlineAccount, online.auth == .password {
            do throws(OnlineAccountsError) {
                imap.password = try services.onlineAccounts.imapPassword(for: online)
            } catch {
                throw ConfigurationError(error.message)
            }
            return try services.draftsMailbox.store(message, on: imap)
        }
        if account.onlineAccount != nil {
            let credentials = try server(for: account)
            imap.bearerToken = credentials.bearerToken
            imap.password = credentials.password
        } else {
            imap = try account.withPassword(imap, service: "imap", commandTimeout: options.passwordCommandTimeout,
                                            mayPrompt: passwordMayPrompt)
        }
        do {
            return try services.draftsMailbox.store(message, on: imap)
        } catch {
            // A refused token: remembered, and the person asked once to sign in again.
            _ = failure(error, through: account)
            throw error
        }
    }
}
