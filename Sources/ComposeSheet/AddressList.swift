import MIMEMessage

/// An address field as typed: comma-separated mailboxes (`joe@example.org`,
/// `Joe <joe@example.org>`), checked with the same syntax the message builder enforces, so
/// that what the sheet accepts is what can be sent.
struct AddressList: Equatable {
    /// The addr-specs, in order (EmailData keeps bare addresses).
    var addresses: [String] = []
    /// What is wrong with the first entry that does not read, for beside the field.
    var problem: String?

    init(_ text: String) {
        for piece in text.split(separator: ",", omittingEmptySubsequences: true) {
            let entry = piece.trimmingSpaces()
            if entry.isEmpty { continue }
            do throws(MIMEError) {
                addresses.append(try Mailbox(parsing: entry).address)
            } catch {
                if problem == nil { problem = error.message }
            }
        }
    }

    /// The text a field shows for `addresses`.
    static func text(_ addresses: [String]) -> String {
        addresses.joined(separator: ", ")
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
