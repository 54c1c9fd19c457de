public import SMTPTransport

/// Sends stored messages (queued in the outbox, or saved as drafts) from the configured
/// account, all through one SMTP connection (`SMTPSession`). The account is read and its
/// password obtained when the sender is made, for this run only: never cached across runs
/// (DESIGN.md, "evaluated at the moment of routing").
public final class OutboxSender {
    public let account: Account
    private let session: SMTPSession
    /// The server's last reply to each message tried, by outbox entry id.
    public private(set) var replies: [String: String] = [:]

    /// `host:port`, as reports show it.
    public var serverAddress: String { session.server.address }

    /// Obtains the password now (a password command runs, the Secret Service is asked).
    public init(account: Account) throws {
        self.account = account
        session = try SMTPSession(try account.serverWithPassword())
    }

    /// A sender over the configured account, or `nil` when there is none. Throws a
    /// `ConfigurationError` (or a configuration `SMTPError`) when the account cannot be
    /// used as written.
    public static func configured() throws -> OutboxSender? {
        guard let account = try AccountConfiguration.load() else { return nil }
        return try OutboxSender(account: account)
    }

    /// Submits one claimed entry: its stored message, streamed from its file with its
    /// Message-ID unchanged, under its stored envelope. The `flush` sender.
    public func send(_ claim: OutboxClaim) throws {
        let entry = claim.entry
        let receipt: SMTPReceipt
        do {
            receipt = try send(RawMessage(.file(claim.messagePath), envelopeFrom: entry.envelopeFrom, recipients: entry.recipients))
        } catch {
            replies[entry.id] = error.reply
            throw error
        }
        replies[entry.id] = receipt.reply
        let deferred = DeferredRecipients.of(receipt)
        if !deferred.isEmpty {
            // Queued again for them before this entry goes as sent; if that fails, the
            // entry stays (the others may get it twice: a duplicate, never a loss).
            _ = try DeferredRecipients.queue(
                try claim.readMessage(), envelopeFrom: entry.envelopeFrom, deferred: deferred,
                messageId: entry.messageId, server: entry.server, subject: entry.subject, outbox: claim.outbox)
        }
    }

    /// Submits a message already built, over this sender's connection.
    public func send(_ message: RawMessage) throws(SMTPError) -> SMTPReceipt {
        try session.send(message)
    }
}
