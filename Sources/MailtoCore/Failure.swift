/// A failure as a value, to report or to store: its kind and the server's or library's own
/// words (never a password). docs/design.md's `error` member of a report, and the last error of
/// an outbox entry.
public struct Failure: Equatable, Sendable {
    public var kind: ErrorKind
    public var message: String

    public init(kind: ErrorKind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// `error` as a value: its own kind when it has one, else `otherwise` (what the
    /// caller can do with a failure it knows nothing about: retry it, or give up).
    public init(_ error: any Error, otherwise: ErrorKind) {
        if let classified = error as? any ClassifiedError {
            self.init(kind: classified.kind, message: classified.description)
        } else {
            self.init(kind: otherwise, message: "\(error)")
        }
    }

    /// `{"kind": "transient", "message": "..."}`.
    public var json: JSON {
        .object([("kind", .string(kind.rawValue)), ("message", .string(message))])
    }
}

/// A failure kept as a value can be thrown on as it is: its kind and words are its own.
extension Failure: ClassifiedError {
    public var description: String { message }
}
