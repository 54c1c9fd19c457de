public import MailtoCore

/// Everything that can go wrong on the direct path, classified for the router.
public struct SMTPError: ClassifiedError, Equatable, Sendable {
    public var kind: ErrorKind
    /// A sentence for a person, in their language, with the server's reply where it says
    /// why; never a password.
    public var message: String
    /// The server's last reply line, when it said something before things went wrong.
    public var reply: String?
    /// The server answered the login and refused it: the password or the token is the
    /// problem, not the server (which offering no mechanism that fits would be).
    public var refusedLogin = false
    /// What it is, as people meet it (a notification says it in their language).
    public var cause: FailureCause?
    /// libcurl's own words, untranslated: kept out of `message` (`--json`, the log).
    public var detail: String?

    public init(_ kind: ErrorKind, _ message: String, reply: String? = nil, cause: FailureCause? = nil, detail: String? = nil) {
        self.kind = kind
        self.message = message
        self.reply = reply
        self.cause = cause
        self.detail = detail
    }

    public var description: String { message }
}
