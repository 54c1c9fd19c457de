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
        let (fields, bodyStart) = Self.headerFields(crlf)
        var head: [UInt8] = []
        var recipients: [String] = []
        var seen = Set<String>()
        var hasFrom = false
        for field in fields {
            switch field.name {
            case "to", "cc", "bcc":
                for address in Self.addresses(in: field.value) {
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
                messageId = String(decoding: field.value, as: UTF8.self).trimmingSpaces()
            default:
                break
            }
            if field.name != "bcc" { head += field.raw }
        }
        guard !recipients.isEmpty else { throw SMTPError(.input, "the draft has no recipient (no To, Cc or Bcc address)") }
        if !hasFrom {
            do { head = try account.headerField("From") + head } catch { throw SMTPError(.input, error.message) }
        }
        bytes = head + crlf[bodyStart...]
        envelopeFrom = account.asciiAddress
        self.recipients = recipients
    }

    /// Each header field: its name in lower case, its value unfolded (without the name),
    /// and its raw lines with their CRLFs; and where the body starts (at the empty line).
    static func headerFields(_ message: [UInt8]) -> ([(name: String, value: [UInt8], raw: [UInt8])], Int) {
        var fields: [(name: String, value: [UInt8], raw: [UInt8])] = []
        var start = 0
        while start < message.count {
            var end = start
            while end + 1 < message.count, !(message[end] == 0x0D && message[end + 1] == 0x0A) { end += 1 }
            let lineEnd = min(end + 2, message.count)
            let line = message[start..<min(end, message.count)]
            if line.isEmpty { return (fields, start) }
            if let first = line.first, first == 0x20 || first == 0x09, !fields.isEmpty {
                // RFC 5322 §2.2.3: a line starting with white space continues the field.
                fields[fields.count - 1].value += line
                fields[fields.count - 1].raw += message[start..<lineEnd]
            } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                // `Bcc :` (white space before the colon, RFC 822's obsolete syntax, which a
                // hand-edited draft may have) is still Bcc: it must never be sent on.
                let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased().trimmingSpaces()
                fields.append((name, Array(line[(colon + 1)...]), Array(message[start..<lineEnd])))
            } else {
                // Not a header line: the header ends here (a draft without an empty line).
                return (fields, start)
            }
            start = lineEnd
        }
        return (fields, message.count)
    }

    /// The addr-specs of an address list (RFC 5322 §3.4): commas outside quotes, angle
    /// brackets and comments separate; `Name <addr>` gives `addr`; groups give members.
    static func addresses(in value: [UInt8]) -> [String] {
        var parts: [[UInt8]] = [[]]
        var quoted = false, angle = false, comment = 0, escaped = false
        for byte in value {
            if escaped { escaped = false; parts[parts.count - 1].append(byte); continue }
            switch byte {
            case UInt8(ascii: "\\") where quoted || comment > 0: escaped = true
            case UInt8(ascii: "\"") where comment == 0: quoted.toggle()
            case UInt8(ascii: "(") where !quoted: comment += 1; continue
            case UInt8(ascii: ")") where !quoted && comment > 0: comment -= 1; continue
            case UInt8(ascii: "<") where !quoted && comment == 0: angle = true
            case UInt8(ascii: ">") where !quoted && comment == 0: angle = false
            case UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"):
                if !quoted, !angle, comment == 0 {
                    // A group's display name ends at ':'; its list at ';'.
                    parts.append([])
                    continue
                }
            default: break
            }
            if comment == 0 { parts[parts.count - 1].append(byte) }
        }
        return parts.compactMap { part in
            var text = String(decoding: part, as: UTF8.self)
            if let open = text.lastIndex(of: "<"), let close = text.lastIndex(of: ">"), open < close {
                text = String(text[text.index(after: open)..<close])
            }
            text = text.trimmingSpaces()
            // A group's display name (before ':') is not an address.
            return text.isEmpty || !text.contains("@") ? nil : text
        }
    }
}
