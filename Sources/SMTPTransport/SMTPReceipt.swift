/// What the server said to a submission that it accepted for at least one recipient.
public struct SMTPReceipt: Sendable, Equatable {
    /// `host:port`.
    public var server: String
    /// The server's last reply line: the answer to the end of DATA (`250 2.0.0 Ok: queued as ...`).
    public var reply: String
    public var accepted: [String]
    public var refused: [RefusedRecipient]

    public init(server: String, reply: String, accepted: [String], refused: [RefusedRecipient] = []) {
        self.server = server
        self.reply = reply
        self.accepted = accepted
        self.refused = refused
    }
}

/// A recipient the server refused while accepting others, with its own reply.
public struct RefusedRecipient: Sendable, Equatable {
    public var address: String
    public var reply: String

    public init(address: String, reply: String) {
        self.address = address
        self.reply = reply
    }
}
