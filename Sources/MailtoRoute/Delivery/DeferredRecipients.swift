import SMTPTransport

/// Recipients a server put off with a 4xx reply while it took the message for the others
/// (DESIGN.md rule 3): the same message, bytes and Message-ID unchanged, is queued again
/// for them alone, so that they get it later and the others do not get it twice.
enum DeferredRecipients {
    /// The refusals that say "try again later".
    static func of(_ receipt: SMTPReceipt) -> [RefusedRecipient] {
        receipt.refused.filter { $0.reply.hasPrefix("4") }
    }

    /// Queues `bytes` for `deferred`; returns the outbox entry, and a warning that names
    /// them. Throws when the outbox cannot take it.
    static func queue(
        _ bytes: [UInt8], envelopeFrom: String, deferred: [RefusedRecipient], messageId: String?,
        server: String?, subject: String?, outbox: Outbox
    ) throws -> (entry: OutboxEntry, warning: String) {
        let entry = try outbox.enqueue(
            OutboxMessage(bytes: bytes, envelopeFrom: envelopeFrom, recipients: deferred.map(\.address),
                          messageId: messageId, server: server, subject: subject),
            failedAttempt: AttemptError(kind: .transient, message: deferred.map { "\($0.address): \($0.reply)" }.joined(separator: "; ")))
        let names = deferred.map(\.address).joined(separator: ", ")
        return (entry, "the server put off \(names) for now: queued in the outbox as \(entry.id) for them")
    }
}
