public import MailtoCore

/// Everything that can go wrong on the direct path, classified for the router.
public struct SMTPError: ClassifiedError, Equatable, Sendable {
    public var kind: ErrorKind
    /// The server's or the library's own text, never a password.
    public var message: String

    public init(_ kind: ErrorKind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
