import MailtoCore
import MIMEMessage

/// An address field as typed: comma-separated mailboxes (`joe@example.org`,
/// `Joe <joe@example.org>`, `"Berg, Asa" <asa@example.org>`), split and read as a link's
/// `to=` is (`EmailData.addRecipients`), each checked with the syntax the message builder
/// enforces, so that what the sheet accepts is what can be sent, with its names.
struct AddressList: Equatable {
    /// The addr-specs, in order (EmailData keeps bare addresses).
    var addresses: [String] = []
    /// The names typed with them, by address.
    var names: [String: String] = [:]
    /// What is wrong with the first entry that does not read, for beside the field.
    var problem: String?

    init(_ text: String) {
        var read = EmailData()
        do throws(Failure) {
            try read.addRecipients(text, to: \.to)
        } catch {
            problem = error.message
            return
        }
        for address in read.to {
            do throws(MIMEError) {
                _ = try Mailbox(address, displayName: read.names[address])
                addresses.append(address)
                if let name = read.names[address] { names[address] = name }
            } catch {
                if problem == nil { problem = error.message }
            }
        }
    }

    /// The text a field shows for `addresses`, each with its name.
    static func text(_ addresses: [String], names: [String: String]) -> String {
        addresses.map { address in names[address].map { DisplayName.mailbox($0, address) } ?? address }.joined(separator: ", ")
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
