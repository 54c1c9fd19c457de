import MIMEMessage
public import SMTPTransport

/// A saved draft made ready for submission (RFC 5322 §3.6.3): the envelope recipients are
/// its To, Cc and Bcc addresses; the Bcc field itself is taken out, so that no recipient
/// learns who else got it; a draft saved without an account gets the account's From.
public struct DraftSubmission: Sendable {
    /// The message to submit, CRLF line ends throughout.
    public var bytes: [UInt8]
    public var envelopeFrom: String
    public var recipients: [String]
    public var messageId: String?

    /// Throws an input error for a draft with no recipient or an address that is not one.
    public init(draft: [UInt8], from account: Mailbox) throws(SMTPError) {
        let crlf = normalizedLineBreaks(draft)
        let section = HeaderSection(crlf)
        var head: [UInt8] = []
        var recipients: [String] = []
        var seen = Set<String>()
        var hasFrom = false
        for field in section.fields {
            switch field.name {
            case "to", "cc", "bcc":
                for address in addrSpecs(in: field.value) {
                    let mailbox: Mailbox
                    do { mailbox = try Mailbox(address) } catch {
                        throw SMTPError(.input, "the draft's \(field.name) field: \(error.message)")
                    }
                    // Each recipient once, by the rule the message builder uses.
                    if seen.insert(mailbox.envelopeKey).inserted { recipients.append(mailbox.asciiAddress) }
                }
            case "from":
                hasFrom = true
            case "message-id":
                messageId = field.text
            default:
                break
            }
            if field.name != "bcc" { head += field.raw }
        }
        guard !recipients.isEmpty else { throw SMTPError(.input, "the draft has no recipient (no To, Cc or Bcc address)") }
        if !hasFrom {
            do { head = try account.headerField("From") + head } catch { throw SMTPError(.input, error.message) }
        }
        if !head.isEmpty, head.last != 0x0A { head += [0x0D, 0x0A] }
        // The empty line between header and body, also where the draft had none.
        bytes = head + [0x0D, 0x0A] + crlf[section.bodyStart...]
        envelopeFrom = account.asciiAddress
        self.recipients = recipients
    }
}
