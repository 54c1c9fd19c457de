/// A message as mailto-route carries it from a URL, the command line or the Swift API to
/// a path (direct, handoff, draft): what the iOS mail composer takes, plus what RFC 6068
/// adds (extra header fields) and what a URL offered but mailto-route did not take.
public struct EmailData: Equatable, Hashable, Sendable {
    /// Bare addr-specs, in the order the URL or caller gave them.
    public var to: [String]
    public var cc: [String]
    public var bcc: [String]
    /// `nil` when absent, `""` when present and empty (docs/mailto-rules.md).
    public var subject: String?
    /// Line breaks are always CRLF. `nil` when absent.
    public var body: String?
    public var isBodyHTML: Bool
    /// Only trusted callers add attachments; a URL never does (RFC 6068 §7).
    public var attachments: [Attachment]
    /// The safe extra header fields, keyed by lower-case name (`in-reply-to`, `references`,
    /// `keywords`).
    public var headers: [String: String]
    /// Each hfield that was offered and not taken, once per name, in order of appearance.
    public var dropped: [DroppedField]
    /// What a URL asked to attach (`attach=`, `attachment=`, `attachments=`), each value
    /// decoded, in order: never attached on its own (docs/design.md rule 8). The compose sheet
    /// lists each one unticked and the consent question names it; it is not part of
    /// `parse --json`'s shape (docs/mailto-rules.md), and a URL written back never carries it.
    public var requestedAttachments: [String]
    /// The display names people gave with the addresses (`Asa Berg <asa@example.org>`: a
    /// link, `send --to`, the sheet, xdg-email), by addr-spec, sent with them and written
    /// back into a URL; `to`, `cc` and `bcc` stay bare addr-specs (docs/mailto-rules.md), and
    /// `parse --json` shows none of these.
    public var names: [String: String]

    /// An empty message: no recipients, no fields.
    @inlinable
    public init() {
        to = []
        cc = []
        bcc = []
        subject = nil
        body = nil
        isBodyHTML = false
        attachments = []
        headers = [:]
        dropped = []
        requestedAttachments = []
        names = [:]
    }

    public init(
        to: [String] = [], cc: [String] = [], bcc: [String] = [],
        subject: String? = nil, body: String? = nil, isBodyHTML: Bool = false,
        attachments: [Attachment] = [], headers: [String: String] = [:],
        dropped: [DroppedField] = [], requestedAttachments: [String] = [], names: [String: String] = [:]
    ) {
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.subject = subject
        self.body = body
        self.isBodyHTML = isBodyHTML
        self.attachments = attachments
        self.headers = headers
        self.dropped = dropped
        self.requestedAttachments = requestedAttachments
        self.names = names
    }

    /// The extra header fields a URL may set, in the order they are printed.
    public static let safeHeaderNames = ["in-reply-to", "references", "keywords"]

    /// `address` as a person reads it, with the name given for it: `Asa Berg
    /// <asa@example.org>`, or the bare address.
    public func mailbox(_ address: String) -> String {
        names[address].map { DisplayName.mailbox($0, address) } ?? address
    }

    /// Every recipient, to + cc + bcc, without repeats (first occurrence kept).
    public var allRecipients: [String] {
        var seen = Set<String>()
        return (to + cc + bcc).filter { seen.insert($0).inserted }
    }
}

/// A file or bytes to attach. Only trusted callers (`send --attach`, the Swift API) make these.
public struct Attachment: Equatable, Hashable, Sendable {
    public enum Content: Equatable, Hashable, Sendable {
        /// A `LocalPath`: the path, or the `file://` form of one that is not UTF-8.
        case file(path: String)
        case data([UInt8])
    }

    public var content: Content
    /// `nil` lets the message builder guess from the file.
    public var mimeType: String?
    public var fileName: String

    public init(content: Content, mimeType: String? = nil, fileName: String) {
        self.content = content
        self.mimeType = mimeType
        self.fileName = fileName
    }

    /// An attachment read from `path` (a `LocalPath`) when the message is built, named
    /// after the file as it is shown (`LocalPath.displayName`).
    public static func file(_ path: String, mimeType: String? = nil) -> Attachment {
        Attachment(content: .file(path: path), mimeType: mimeType, fileName: LocalPath.displayName(path))
    }
}

/// An hfield that a URL offered and mailto-route did not take, with the reason.
public struct DroppedField: Equatable, Hashable, Sendable {
    public enum Reason: Equatable, Hashable, Sendable, CustomStringConvertible {
        /// `from`, `sender`, `reply-to`, `date`, `message-id`, `received`, `return-path`, `resent-*`.
        case originatorOrTrace
        /// `mime-version`, `content-*`.
        case mimeStructure
        /// `attach`, `attachment`, `attachments`.
        case attachment
        case unknown

        public var description: String {
            switch self {
            case .originatorOrTrace: "originator and trace fields are never taken from a URL"
            case .mimeStructure: "the MIME structure is never taken from a URL"
            case .attachment: "attachments are never taken from a URL"
            case .unknown: "unknown header field"
            }
        }
    }

    /// The hfield name as decoded, in ASCII lower case.
    public var name: String
    public var reason: Reason

    public init(name: String, reason: Reason) {
        self.name = name
        self.reason = reason
    }
}
