/// A failure as a value, to report or to store: its kind, a sentence for a person (never a
/// password), and where the failure came from a library or a server, what it is in a
/// person's words (`cause`) and the library's own text (`detail`). docs/design.md's `error`
/// member of a report, and the last error of an outbox entry.
public struct Failure: Equatable, Sendable {
    public var kind: ErrorKind
    public var message: String
    /// What went wrong, as people meet it: the notification's reason.
    public var cause: FailureCause?
    /// libcurl's or GLib's own words, untranslated (`--json`, the log, `outbox show`): a
    /// person's report says `message` (docs/translations.md).
    public var detail: String?

    public init(kind: ErrorKind, message: String, cause: FailureCause? = nil, detail: String? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
        self.detail = detail
    }

    /// `error` as a value: its own kind when it has one, else `otherwise` (what the
    /// caller can do with a failure it knows nothing about: retry it, or give up).
    public init(_ error: any Error, otherwise: ErrorKind) {
        if let classified = error as? any ClassifiedError {
            self.init(kind: classified.kind, message: classified.description, cause: classified.cause, detail: classified.detail)
        } else {
            self.init(kind: otherwise, message: "\(error)")
        }
    }

    /// `{"kind": "transient", "message": "...", "cause": "connect", "detail": "..."}`, the last
    /// two where known.
    public var json: JSON {
        var members: [(String, JSON)] = [("kind", .string(kind.rawValue)), ("message", .string(message))]
        if let cause { members.append(("cause", .string(cause.rawValue))) }
        if let detail { members.append(("detail", .string(detail))) }
        return .object(members)
    }

    /// The reason a person is told in one phrase ("the mail server is not answering"):
    /// the cause's, else the first clause of the message.
    public var reason: String {
        if let cause { return cause.reason }
        let cut = message.split(separator: ";", maxSplits: 1).first.map(String.init) ?? message
        return cut.count > 80 ? String(cut.prefix(79)) + "…" : cut
    }
}

/// The failures people meet, each said in their own language by the project's own words
/// (issue: libcurl's English text never reaches a German notification). The raw values
/// are JSON's `error.cause`.
public enum FailureCause: String, Equatable, Sendable, CaseIterable {
    /// No connection could be made (refused, unreachable).
    case connect
    /// The server did not answer in time.
    case timeout
    /// The server's name was not found (DNS).
    case name
    /// The secure connection (TLS, STARTTLS) could not be made.
    case tls
    /// The server's certificate is not trusted.
    case certificate
    /// The server refused the login: the password or the sign-in token.
    case login
    /// The message is larger than the server takes.
    case size
    /// The server refused a recipient.
    case recipient
    /// The person stopped the send before the server had the end of the message.
    case stopped

    /// In a person's words, to follow "Not sent yet: " or "Not sent to Joe: ".
    public var reason: String {
        switch self {
        case .connect: tr("the mail server is not answering")
        case .timeout: tr("the mail server stopped answering")
        case .name: tr("the mail server's name was not found")
        case .tls: tr("no secure connection to the mail server could be made")
        case .certificate: tr("the mail server's certificate is not trusted")
        case .login: tr("the mail server refused the password")
        case .size: tr("the message is too large for the mail server")
        case .recipient: tr("the mail server refused the recipient")
        case .stopped: tr("you stopped it before the mail server had it")
        }
    }
}

/// A failure kept as a value can be thrown on as it is: its kind and words are its own.
extension Failure: ClassifiedError {
    public var description: String { message }
}
