public import MailtoCore

/// A mistake in the user's setup (config file, msmtprc, password source): one line that
/// names the file and what is wrong, and exit status 78.
public struct ConfigurationError: ClassifiedError, Equatable, Sendable {
    public var message: String
    public var kind: ErrorKind { .configuration }

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
