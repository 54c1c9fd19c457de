public import MailtoCore

/// An RFC 5322 message built from an `EmailData` and the sender, ready to be streamed:
/// headers, text and HTML are built here (they are small); attachments are described
/// and read from their files only when `makeStream()`'s stream is read.
public struct OutgoingMessage: Sendable {
    public let from: Mailbox
    /// `<random@domain>`, generated once: a retry of this value sends the same Message-ID.
    public let messageID: String
    /// to + cc + bcc, each once (compared with the domain in lower case), in order.
    public let recipients: [Mailbox]
    /// Exactly how many octets the stream produces, for a progress bar.
    public let size: Int
    let segments: [Segment]

    enum Segment: Sendable {
        case bytes([UInt8])
        /// Base64 of a file's first `size` octets, 76-character lines joined by CRLF.
        case base64File(path: String, size: Int)
        case base64Data([UInt8])

        var encodedSize: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .base64File(_, let size): Base64Lines.encodedSize(size)
            case .base64Data(let data): Base64Lines.encodedSize(data.count)
            }
        }
    }

    /// Builds the message. `date` (seconds since the epoch) and `messageID` are for tests
    /// and for re-sending a message that already has them.
    ///
    /// Throws an input error for any header value with CR, LF or NUL, any address that is
    /// not one, a message with no recipient, and an attachment file that cannot be read.
    public init(from: Mailbox, email: EmailData, date: Int? = nil, messageID: String? = nil) throws(MIMEError) {
        try self.init(sender: from, email: email, date: date, messageID: messageID, isDraft: false)
    }

    /// A submission (`isDraft` false) needs a sender and a recipient and never has a Bcc
    /// field; a draft may lack both, and keeps Bcc so that sending it later reaches
    /// everybody the user meant (RFC 5322 §3.6.3 allows Bcc in a message not yet sent).
    init(sender: Mailbox?, email: EmailData, date: Int?, messageID: String?, isDraft: Bool) throws(MIMEError) {
        self.from = sender ?? Self.draftSender
        // Each recipient with the name given for it, RFC 2047-encoded when not ASCII.
        func mailboxes(_ addresses: [String]) throws(MIMEError) -> [Mailbox] {
            try addresses.map { (address) throws(MIMEError) in try Mailbox(address, displayName: email.names[address]) }
        }
        let to = try mailboxes(email.to)
        let cc = try mailboxes(email.cc)
        let bcc = try mailboxes(email.bcc)
        var seen = Set<String>()
        recipients = (to + cc + bcc).filter { seen.insert($0.envelopeKey).inserted }
        guard !recipients.isEmpty || isDraft else { throw .input(tr("no recipient (give --to, --cc or --bcc)")) }
        if let messageID {
            try HeaderValue.checkSafe(messageID, field: "Message-ID")
            self.messageID = messageID
        } else {
            self.messageID = "<\(RandomHex.make(octets: 16))@\(IDNA.asciiDomain(from.domain))>"
        }

        var head: [UInt8] = []
        head += try HeaderValue.field("Date", [rfc5322Date(date ?? currentTime())])
        if let sender { head += try HeaderValue.field("From", HeaderValue.mailboxWords(sender)) }
        if !to.isEmpty { head += try HeaderValue.field("To", Self.listWords(to)) }
        if !cc.isEmpty { head += try HeaderValue.field("Cc", Self.listWords(cc)) }
        if isDraft, !bcc.isEmpty { head += try HeaderValue.field("Bcc", Self.listWords(bcc)) }
        // RFC 5322 §3.6.3: Bcc recipients are only in the envelope, never in the message.
        if let subject = email.subject {
            try HeaderValue.checkSafe(subject, field: "subject")
            head += try HeaderValue.field("Subject", subject.isEmpty ? [] : HeaderValue.unstructuredWords(subject))
        }
        head += try HeaderValue.field("Message-ID", [self.messageID])
        for (name, fieldName) in [("in-reply-to", "In-Reply-To"), ("references", "References")] {
            guard let value = email.headers[name] else { continue }
            head += try HeaderValue.field(fieldName, Self.messageIDWords(value, field: fieldName))
        }
        if let keywords = email.headers["keywords"] {
            try HeaderValue.checkSafe(keywords, field: "keywords")
            head += try HeaderValue.field("Keywords", HeaderValue.unstructuredWords(keywords))
        }
        head += try HeaderValue.field("MIME-Version", ["1.0"])

        var segments: [Segment] = []
        let body = Self.bodyPart(email)
        if email.attachments.isEmpty {
            segments.append(.bytes(head + body))
        } else {
            let boundary = Self.boundary()
            var first = head
            first += try HeaderValue.field("Content-Type", ["multipart/mixed;", "boundary=\"\(boundary)\""])
            first += Array("\r\n--\(boundary)\r\n".utf8) + body
            segments.append(.bytes(first))
            for attachment in email.attachments {
                var part = Array("\r\n--\(boundary)\r\n".utf8)
                part += try Self.attachmentHeaders(attachment)
                segments.append(.bytes(part))
                switch attachment.content {
                case .data(let data): segments.append(.base64Data(data))
                case .file(let path): segments.append(.base64File(path: path, size: try FileSource.size(of: path)))
                }
            }
            segments.append(.bytes(Array("\r\n--\(boundary)--\r\n".utf8)))
        }
        self.segments = segments
        size = segments.reduce(0) { $0 + $1.encodedSize }
    }

    /// A stream over the whole message; opens attachment files now.
    public func makeStream() throws(MIMEError) -> MessageStream {
        try MessageStream(segments: segments, size: size)
    }

    // MARK: - Parts

    /// The text part, or text + HTML as multipart/alternative: headers, blank line, content.
    private static func bodyPart(_ email: EmailData) -> [UInt8] {
        let body = normalizedLineBreaks((email.body ?? "").utf8)
        guard email.isBodyHTML else { return textPart(body, subtype: "plain") }
        let text = normalizedLineBreaks(HTMLText.plainText(fromHTML: String(decoding: body, as: UTF8.self)).utf8)
        let boundary = boundary()
        var out = Array("Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"\r\n\r\n".utf8)
        out += Array("--\(boundary)\r\n".utf8) + textPart(text, subtype: "plain")
        out += Array("\r\n--\(boundary)\r\n".utf8) + textPart(body, subtype: "html")
        out += Array("\r\n--\(boundary)--".utf8)
        return out
    }

    private static func textPart(_ text: [UInt8], subtype: String) -> [UInt8] {
        let encoding = BodyEncoding.choose(for: text)
        var out = Array("Content-Type: text/\(subtype); charset=utf-8\r\n".utf8)
        out += Array("Content-Transfer-Encoding: \(encoding.rawValue)\r\n\r\n".utf8)
        out += encoding.encode(text)
        return out
    }

    private static func attachmentHeaders(_ attachment: Attachment) throws(MIMEError) -> [UInt8] {
        try HeaderValue.checkSafe(attachment.fileName, field: tr("attachment file name"))
        let type: String
        if let given = attachment.mimeType {
            guard MIMEType.isValid(given) else { throw .input(tr("invalid MIME type for %@: %@", attachment.fileName, given)) }
            type = given
        } else {
            type = MIMEType.guess(fileName: attachment.fileName)
        }
        var out = try HeaderValue.field("Content-Type", [type])
        out += try HeaderValue.field("Content-Disposition", ["attachment;"] + FileNameParameter.words(attachment.fileName))
        out += Array("Content-Transfer-Encoding: base64\r\n\r\n".utf8)
        return out
    }

    // MARK: - Header helpers

    /// `a@x, Name <b@y>` as words, commas attached, for folding between addresses.
    private static func listWords(_ mailboxes: [Mailbox]) -> [String] {
        var words: [String] = []
        for (index, mailbox) in mailboxes.enumerated() {
            var part = HeaderValue.mailboxWords(mailbox)
            if index < mailboxes.count - 1, let last = part.popLast() { part.append(last + ",") }
            words += part
        }
        return words
    }

    /// In-Reply-To and References: msg-ids, printable ASCII, split at whitespace.
    private static func messageIDWords(_ value: String, field: String) throws(MIMEError) -> [String] {
        try HeaderValue.checkSafe(value, field: field)
        guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0x09 }) else {
            throw .input(tr("%@ must be ASCII message identifiers: %@", field, value))
        }
        return value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// `=_mr_` cannot occur in quoted-printable or base64 output (`=` is always `=XX` in
    /// the one and absent from the lines of the other), and 24 random hex digits make a
    /// 7bit text part containing it beyond unlikely.
    private static func boundary() -> String {
        "=_mr_" + RandomHex.make(octets: 12)
    }
}

extension Mailbox {
    /// Two recipients are one when local parts match and domains match ignoring case.
    public var envelopeKey: String {
        guard let at = asciiAddress.lastIndex(of: "@") else { return asciiAddress }
        return String(asciiAddress[..<at]) + "@" + asciiAddress[asciiAddress.index(after: at)...].asciiLowercased()
    }
}

/// RFC 2231 file names: `filename="name"` when it is plain ASCII that fits, otherwise
/// `filename*0*=utf-8''%..` continuations, each short enough to fold at 78 columns.
enum FileNameParameter {
    static func words(_ name: String) -> [String] {
        let bytes = Array(name.utf8)
        let plain = bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        if plain, bytes.count <= 60 { return ["filename=\"\(name)\""] }
        // RFC 2231 §7 attribute-char: token characters without `*`, `'`, `%`.
        let unreserved = Set("!#$&+-.^_`|~".utf8)
        var pieces: [String] = []
        var current = "utf-8''"
        for byte in bytes {
            let keep = AddressSyntax.isAlphaNumeric(byte) || unreserved.contains(byte)
            let encoded = keep ? String(UnicodeScalar(byte)) : "%" + String(decoding: [Hex.upperDigits[Int(byte >> 4)], Hex.upperDigits[Int(byte & 15)]], as: UTF8.self)
            if current.utf8.count + encoded.utf8.count > 50 {
                pieces.append(current)
                current = ""
            }
            current += encoded
        }
        pieces.append(current)
        if pieces.count == 1 { return ["filename*=\(pieces[0])"] }
        return pieces.enumerated().map { index, piece in
            "filename*\(index)*=\(piece)" + (index < pieces.count - 1 ? ";" : "")
        }
    }
}
