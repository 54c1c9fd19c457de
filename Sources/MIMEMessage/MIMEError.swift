public import MailtoCore

/// What can be wrong with a message before it leaves: a header value that would inject,
/// an address that is not one, an attachment that cannot be read.
public struct MIMEError: ClassifiedError, Equatable, Sendable {
    public var kind: ErrorKind
    public var message: String

    public init(_ kind: ErrorKind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    static func input(_ message: String) -> MIMEError { MIMEError(.input, message) }
}
