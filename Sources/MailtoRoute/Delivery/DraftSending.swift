import SMTPTransport

/// What `drafts send ID` came to.
public struct DraftSendResult: Sendable {
    public var draft: String
    /// `sent`, `queued` (in the outbox: the draft is gone from the drafts), `failed` (still a draft).
    public var result: String
    public var server: String?
    public var reply: String?
    public var messageId: String?
    public var accepted: [String] = []
    public var refused: [(address: String, reply: String)] = []
    /// The outbox entry a transient failure queued it as.
    public var outboxId: String?
    /// Whether the draft file is gone (sent, or moved to the outbox).
    public var draftRemoved = false
    public var error: AttemptError?
    /// A problem after the fact (the draft could not be removed): said, not hidden.
    public var warnings: [String] = []

    public var json: JSON {
        var members: [(String, JSON)] = [("draft", .string(draft)), ("result", .string(result))]
        if let server { members.append(("server", .string(server))) }
        if let reply { members.append(("reply", .string(reply))) }
        if let messageId { members.append(("messageId", .string(messageId))) }
        members.append(("accepted", .strings(accepted)))
        members.append(("refused", .array(refused.map { .object([("address", .string($0.address)), ("reply", .string($0.reply))]) })))
        if let outboxId { members.append(("outboxId", .string(outboxId))) }
        members.append(("draftRemoved", .bool(draftRemoved)))
        members.append(("warnings", .strings(warnings)))
        if let error { members.append(("error", error.json)) }
        return .object(members)
    }
}

/// `drafts send ID`: the user asked, so it is sent (trusted, like `send`) from the
/// configured account. Sent: the draft is removed. A transient failure: it moves to the
/// outbox (queued). Anything else: it stays a draft.
public enum DraftSending {
    /// Throws before any sending: an unknown draft (input), no account (configuration).
    public static func send(_ id: String, locations: StorageLocations) throws -> DraftSendResult {
        let drafts = locations.drafts
        let bytes = try drafts.read(id)
        guard let account = try AccountConfiguration.load() else {
            throw ConfigurationError(
                "no account to send from: write an [account] group in \(AccountConfiguration.configPath) (see README); the draft stays in \(drafts.path(id))")
        }
        var result = DraftSendResult(draft: id, result: "failed", server: account.server.address)
        do {
            let submission = try DraftSubmission(draft: bytes, from: account.from)
            result.messageId = submission.messageId
            try send(submission, account: account, outbox: locations.outbox, into: &result)
            if result.result != "failed" { remove(id, from: drafts, into: &result) }
        } catch {
            result.error = AttemptError(attempt: error)
        }
        try? locations.outcomeLog.append(Outcome(
            source: "drafts", path: result.result == "queued" ? "outbox" : "direct", result: result.result,
            server: result.server, errorKind: result.error?.kind))
        return result
    }

    /// Sends; on a transient failure queues it in the outbox (durably, before the draft
    /// goes: DESIGN.md rule 3) and says so in `result`.
    private static func send(_ submission: DraftSubmission, account: Account, outbox: Outbox, into result: inout DraftSendResult) throws {
        let sender = try OutboxSender(account: account)
        result.server = sender.serverAddress
        let receipt: SMTPReceipt
        do {
            receipt = try sender.send(RawMessage(.bytes(submission.bytes), envelopeFrom: submission.envelopeFrom,
                                                 recipients: submission.recipients))
        } catch {
            result.reply = error.reply
            result.error = AttemptError(attempt: error)
            guard error.kind == .transient else { return }
            let entry = try outbox.enqueue(
                OutboxMessage(bytes: submission.bytes, envelopeFrom: submission.envelopeFrom, recipients: submission.recipients,
                              messageId: submission.messageId, server: result.server),
                failedAttempt: AttemptError(attempt: error))
            result.result = "queued"
            result.outboxId = entry.id
            return
        }
        result.result = "sent"
        result.reply = receipt.reply
        result.accepted = receipt.accepted
        result.refused = receipt.refused.map { ($0.address, $0.reply) }
        let deferred = DeferredRecipients.of(receipt)
        if !deferred.isEmpty {
            let (entry, warning) = try DeferredRecipients.queue(
                submission.bytes, envelopeFrom: submission.envelopeFrom, deferred: deferred,
                messageId: submission.messageId, server: result.server, subject: nil, outbox: outbox)
            result.outboxId = entry.id
            result.warnings.append(warning)
        }
    }

    private static func remove(_ id: String, from drafts: Drafts, into result: inout DraftSendResult) {
        do {
            try drafts.drop(id)
            result.draftRemoved = true
        } catch {
            result.warnings.append("the draft could not be removed, so sending it again would send it twice: \(error)")
        }
    }
}
