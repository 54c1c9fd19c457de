/// A signature block under a message (RFC 3676 §4.3): a line `-- ` (dash, dash, space),
/// then the signature. The sheet and the compose editor put an account's `signature=` below
/// a new message, where the user can edit it.
public enum Signature {
    /// RFC 3676 §4.3: dash, dash, space, alone on its line.
    public static let separator = "-- "

    /// `body` with `signature` below it after the separator line, an empty line above the
    /// separator (and above that, for an empty body, the first line, where a new message's
    /// text goes); its line breaks are `lineBreak` (the text view's LF, or EmailData's CRLF).
    /// A body that already has a separator line (a link's, a recovered message's) is left as
    /// it is: one signature, not two.
    public static func appended(_ signature: String?, to body: String, lineBreak: String = "\n") -> String {
        guard let signature, !signature.isEmpty, !hasSeparator(body) else { return body }
        let endsWithBreak = body.last.map(isLineBreak) ?? false
        let gap = body.isEmpty ? lineBreak + lineBreak : endsWithBreak ? lineBreak : lineBreak + lineBreak
        return body + gap + separator + lineBreak + lines(of: signature).joined(separator: lineBreak)
    }

    /// Whether `body` has a separator line already.
    public static func hasSeparator(_ body: String) -> Bool {
        lines(of: body).contains { $0 == separator }
    }

    /// CRLF is one Character in Swift, LF another: both end a line.
    private static func isLineBreak(_ character: Character) -> Bool {
        character == "\n" || character == "\r\n"
    }

    private static func lines(of text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: isLineBreak)
    }
}
