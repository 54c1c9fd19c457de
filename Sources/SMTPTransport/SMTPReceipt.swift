/// What the server said to a submission that it accepted for at least one recipient.
public struct SMTPReceipt: Sendable, Equatable {
    /// `host:port`.
    public var server: String
    /// The server's last reply line: the answer to the end of DATA (`250 2.0.0 Ok: queued as ...`).
    public var reply: String
    public var accepted: [String]
    public var refused: [RefusedRecipient]
}

/// A recipient the server refused while accepting others, with its own reply.
public struct RefusedRecipient: Sendable, Equatable {
    public var address: String
    public var reply: String
}
