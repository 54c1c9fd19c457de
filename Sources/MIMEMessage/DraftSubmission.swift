internal import MailtoCore

/// A saved draft (one mailto-route wrote, or an `.eml` the user edited or copied in) made
/// ready for submission as the message builder would make it (RFC 5322):
/// - the envelope recipients are its To, Cc and Bcc addresses, each once; the Bcc field
///   itself is taken out, so that no recipient learns who else got it (§3.6.3);
/// - it gets the account's From when it has none, and a fresh Date and Message-ID (from
///   the account's domain): a draft is not sent until now;
/// - trace fields a copied message may carry (Return-Path, Received, Delivered-To) are
///   dropped: a server adds its own;
/// - line ends are CRLF; a header line over 998 octets is folded at its spaces, and one
///   that cannot be, or a body line over 998 octets, or a NUL, is refused (§2.1.1, §2.3).
public struct DraftSubmission: Sendable {
    /// The message to submit.
    public var bytes: [UInt8]
    public var envelopeFrom: String
    public var recipients: [String]
    public var messageId: String
    /// What was changed that a person may want to know (the fields dropped).
    public var warnings: [String] = []

    static let dropped: Set<String> = ["bcc", "date", "message-id", "return-path", "received", "delivered-to"]
    static let traceFields: Set<String> = ["return-path", "received", "delivered-to"]

    /// Throws an input error for a draft with no recipient, an address that is not one, a
    /// NUL, or a line too long to send.
    public init(draft: [UInt8], from account: Mailbox, date: Int? = nil) throws(MIMEError) {
        if let nul = draft.firstIndex(of: 0) {
            throw .input(tr("the draft holds a NUL byte (at offset %@), which a message may not carry (RFC 5322 §2.3)", nul))
        }
        let crlf = normalizedLineBreaks(draft)
        let section = HeaderSection(crlf)
        var head: [UInt8] = []
        var recipients: [String] = []
        var seen = Set<String>()
        var hasFrom = false
        var droppedTrace: [String] = []
        for field in section.fields {
            switch field.name {
            case "to", "cc", "bcc":
                for address in addrSpecs(in: field.value) {
                    let mailbox: Mailbox
                    do { mailbox = try Mailbox(address) } catch {
                        throw .input(tr("the draft's %@ field: %@", field.name, error.message))
                    }
                    // Each recipient once, by the rule the message builder uses.
                    if seen.insert(mailbox.envelopeKey).inserted { recipients.append(mailbox.asciiAddress) }
                }
            case "from":
                hasFrom = true
            default:
                break
            }
            if Self.traceFields.contains(field.name) { droppedTrace.append(Self.writtenName(field)) }
            if !Self.dropped.contains(field.name) { head += try Self.sendable(field) }
        }
        guard !recipients.isEmpty else { throw .input(tr("the draft has no recipient (no To, Cc or Bcc address)")) }
        messageId = "<\(RandomHex.make(octets: 16))@\(IDNA.asciiDomain(account.domain))>"
        var fresh = try HeaderValue.field("Date", [rfc5322Date(date ?? currentTime())])
        if !hasFrom { fresh += try account.headerField("From") }
        head = fresh + head + (try HeaderValue.field("Message-ID", [messageId]))
        let body = crlf[section.bodyStart...]
        var lineNumber = 1
        var lineLength = 0
        for byte in body {
            if byte == 0x0A {
                lineNumber += 1
                lineLength = 0
            } else {
                lineLength += 1
                if lineLength > HeaderValue.hardLimit + 1 {
                    throw .input(tr("line %@ of the draft's body is over %@ octets, more than a message line may hold "
                        + "(RFC 5322 §2.1.1)", lineNumber, HeaderValue.hardLimit))
                }
            }
        }
        // The empty line between header and body, also where the draft had none.
        bytes = head + [0x0D, 0x0A] + body
        envelopeFrom = account.asciiAddress
        self.recipients = recipients
        if !droppedTrace.isEmpty {
            warnings.append(tr("the draft's %@ field(s) were not sent: the server adds its own", droppedTrace.joined(separator: ", ")))
        }
    }

    /// The field's name as the draft wrote it.
    static func writtenName(_ field: HeaderSection.Field) -> String {
        String(decoding: field.raw.prefix { $0 != UInt8(ascii: ":") }, as: UTF8.self).trimmingSpaces()
    }

    /// The field as it was, CRLF-terminated; refolded at its spaces when a line is over
    /// 998 octets.
    static func sendable(_ field: HeaderSection.Field) throws(MIMEError) -> [UInt8] {
        var raw = field.raw
        if raw.last != 0x0A { raw += [0x0D, 0x0A] }
        let tooLong = raw.split(separator: 0x0A).contains { $0.count - 1 > HeaderValue.hardLimit }
        guard tooLong else { return raw }
        let words = field.value.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).map { String(decoding: $0, as: UTF8.self) }
        return try HeaderValue.field(writtenName(field), words)
    }
}
