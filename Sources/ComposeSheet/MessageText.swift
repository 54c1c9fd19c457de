import MailtoCore

/// The body as EmailData holds it (CRLF line breaks) and as a text view holds it (LF).
enum MessageText {
    /// CRLF (and a lone CR) to LF, for the text view.
    static func forEditing(_ body: String) -> String {
        guard body.utf8.contains(UInt8(ascii: "\r")) else { return body }
        var out: [UInt8] = []
        out.reserveCapacity(body.utf8.count)
        var previousCR = false
        for byte in body.utf8 {
            if byte == UInt8(ascii: "\r") {
                out.append(UInt8(ascii: "\n"))
                previousCR = true
                continue
            }
            if byte == UInt8(ascii: "\n"), previousCR {
                previousCR = false
                continue
            }
            previousCR = false
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// LF to CRLF (MailtoCore's rule: line breaks are always CRLF).
    static func forSending(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "\n")) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + text.utf8.count / 32)
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\n") { out.append(UInt8(ascii: "\r")) }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Where `text` holds invisible or bidirectional control characters (MailtoCore's
    /// `String.visible` set; tab and line breaks are ordinary text in a body): the number
    /// of such characters and the first line that holds one, written visibly.
    static func hiddenCharacters(in text: String, lineBreaksAllowed: Bool) -> (count: Int, line: Int, shown: String)? {
        var count = 0
        var firstLine = 0
        var line = 1
        var lineStart = text.unicodeScalars.startIndex
        var firstLineRange: Range<String.UnicodeScalarView.Index>?
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if lineBreaksAllowed, scalar == "\n" || scalar == "\t" {
                if scalar == "\n" {
                    if count > 0, firstLineRange == nil { firstLineRange = lineStart..<index }
                    line += 1
                    lineStart = scalars.index(after: index)
                }
            } else if scalar.isInvisibleOrControl {
                if count == 0 { firstLine = line }
                count += 1
            }
            index = scalars.index(after: index)
        }
        guard count > 0 else { return nil }
        let range = firstLineRange ?? lineStart..<scalars.endIndex
        var shown = String(String.UnicodeScalarView(scalars[range])).visible
        if shown.count > 120 { shown = String(shown.prefix(117)) + "…" }
        return (count, firstLine, shown)
    }
}
