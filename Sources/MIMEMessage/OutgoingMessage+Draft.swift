public import MailtoCore

extension OutgoingMessage {
    /// The Message-ID domain of a draft with no account behind it.
    static let draftSender: Mailbox = {
        // "localhost" is always a valid domain; a literal address needs no syntax check.
        guard let mailbox = try? Mailbox("draft@localhost") else { preconditionFailure("draft@localhost is an address") }
        return mailbox
    }()

    /// A draft of `email` that can always be written, so that a message that cannot be
    /// sent is still kept (docs/design.md rule 3, "nothing lost"). What a draft cannot hold as
    /// it is (an address that is not one, a line break in a header field, an unreadable
    /// attachment) is mended or left out, and each such change is in `warnings`.
    public static func draft(of email: EmailData, from sender: Mailbox?) -> (message: OutgoingMessage, warnings: [String]) {
        var warnings: [String] = []
        var kept = email
        func validAddresses(_ addresses: [String], _ field: String) -> [String] {
            addresses.filter { address in
                do throws(MIMEError) {
                    try AddressSyntax.check(address)
                    return true
                } catch {
                    warnings.append(tr("%@ '%@' left out of the draft: %@", field, address.visible, error.message))
                    return false
                }
            }
        }
        kept.to = validAddresses(email.to, "To")
        kept.cc = validAddresses(email.cc, "Cc")
        kept.bcc = validAddresses(email.bcc, "Bcc")
        for (address, name) in email.names where name.unicodeScalars.contains(where: \.isLineBreakOrNUL) {
            kept.names[address] = nil
            warnings.append(tr("the name given for %@ left out of the draft: it holds a line break or NUL", address.visible))
        }
        if let subject = email.subject, subject.unicodeScalars.contains(where: \.isLineBreakOrNUL) {
            kept.subject = String(String.UnicodeScalarView(subject.unicodeScalars.map { $0.isLineBreakOrNUL ? " " : $0 }))
            warnings.append(tr("line breaks and NUL in the subject became spaces in the draft"))
        }
        while true {
            do throws(MIMEError) {
                let message = try OutgoingMessage(sender: sender, email: kept, date: nil, messageID: nil, isDraft: true)
                return (message, warnings)
            } catch {
                // Give up what the builder refused, in order of least loss: the extra
                // header fields, the attachments, the HTML format. Subject, body and valid
                // addresses are always writable.
                if !kept.headers.isEmpty {
                    warnings.append(tr("header fields %@ left out of the draft: %@", kept.headers.keys.sorted().joined(separator: ", "), error.message))
                    kept.headers = [:]
                } else if !kept.attachments.isEmpty {
                    warnings.append(tr("attachments %@ left out of the draft: %@", kept.attachments.map(\.fileName).joined(separator: ", "), error.message))
                    kept.attachments = []
                } else if kept.isBodyHTML {
                    warnings.append(tr("the body went into the draft as plain text, not HTML: %@", error.message))
                    kept.isBodyHTML = false
                } else {
                    preconditionFailure("a draft of addresses, subject and body could not be built: \(error.message)")
                }
            }
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isLineBreakOrNUL: Bool { value == 0x0D || value == 0x0A || value == 0 }
}
