public import MailtoCore

/// What mailto-route-desktop and mailto-route-books say to each other over the socket that
/// is the helper's standard input and output, defined once for both (docs/style.md habit
/// 16): one line per request, the prefix typed; one line per answer, the contacts found,
/// in order. The books may be closed to the helper (no EDS, no book in autocompletion):
/// then it ends instead of answering, and its end is the answer.
///
/// A line ends with LF; in an answer the contacts are separated by RS (U+001E) and a
/// contact's name from its address by US (U+001F). No field can hold any of them: a control
/// character in a typed prefix or a name becomes a space, and an address that holds one is
/// left out (no valid address does).
public enum HelperProtocol {
    /// At most this many contacts in an answer: the sheet's list shows eight rows.
    public static let limit = 8

    private static let recordSeparator: Unicode.Scalar = "\u{1E}"
    private static let unitSeparator: Unicode.Scalar = "\u{1F}"

    /// The request for `prefix`, its line end included.
    public static func request(_ prefix: String) -> String {
        withoutControls(prefix) + "\n"
    }

    /// The prefix a request line asks for (the line without its end).
    public static func prefix(fromRequest line: String) -> String {
        withoutControls(line)
    }

    /// The answer line for `contacts` (the first `limit`), its line end included.
    public static func answer(_ contacts: [Contact]) -> String {
        let records = contacts.lazy.filter { !$0.address.unicodeScalars.contains(where: isControl) }.prefix(limit)
            .map { withoutControls($0.name) + String(unitSeparator) + $0.address }
        return records.joined(separator: String(recordSeparator)) + "\n"
    }

    /// The contacts of an answer line (without its end); a record without an address is
    /// skipped.
    public static func contacts(fromAnswer line: String) -> [Contact] {
        line.unicodeScalars.split(separator: recordSeparator).compactMap { record in
            let fields = record.split(separator: unitSeparator, maxSplits: 1, omittingEmptySubsequences: false)
            guard fields.count == 2, !fields[1].isEmpty else { return nil }
            return Contact(name: String(String.UnicodeScalarView(fields[0])), address: String(String.UnicodeScalarView(fields[1])))
        }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }

    private static func withoutControls(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? " " : $0 }))
    }
}
