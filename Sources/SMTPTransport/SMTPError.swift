public import MailtoCore

/// Everything that can go wrong on the direct path, classified for the router.
public struct SMTPError: ClassifiedError, Equatable, Sendable {
    public var kind: ErrorKind
    /// The server's or the library's own text, never a password.
    public var message: String
    /// The server's last reply line, when it said something before things went wrong.
    public var reply: String?
    /// The server answered the login and refused it: the password or the token is the
    /// problem, not the server (which offering no mechanism that fits would be).
    public var refusedLogin = false

    public init(_ kind: ErrorKind, _ message: String, reply: String? = nil) {
        self.kind = kind
        self.message = message
        self.reply = reply
    }

    public var description: String { message }
}
