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
        var text = text
        return text.withUTF8 { bytes in
            var breaks = 0
            for byte in bytes where byte == UInt8(ascii: "\n") { breaks += 1 }
            guard breaks > 0 else { return String(decoding: bytes, as: UTF8.self) }
            return String(unsafeUninitializedCapacity: bytes.count + breaks) { out in
                var index = 0
                for byte in bytes {
                    if byte == UInt8(ascii: "\n") {
                        out[index] = UInt8(ascii: "\r")
                        index += 1
                    }
                    out[index] = byte
                    index += 1
                }
                return index
            }
        }
    }

    /// Where `text` (as a text view holds it: LF line breaks) holds invisible or
    /// bidirectional control characters (MailtoCore's `String.visible` set; tab and line
    /// breaks are ordinary text in a body): how many, and the first line that holds one,
    /// written visibly. Scans the UTF-8 bytes and decodes only the few lead bytes such a
    /// character can start with, so that a 10 MB body is scanned in a blink.
    static func hiddenCharacters(in text: String) -> (count: Int, line: Int, shown: String)? {
        var text = text
        return text.withUTF8 { bytes -> (count: Int, line: Int, shown: String)? in
            var count = 0
            var line = 1
            var lineStart = 0
            var first: (line: Int, start: Int)?
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x80 {
                    if byte == UInt8(ascii: "\n") {
                        line += 1
                        lineStart = index + 1
                    } else if (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F {
                        count += 1
                        if first == nil { first = (line, lineStart) }
                    }
                    index += 1
                    continue
                }
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                // Lead bytes of C1 controls and U+00AD (C2), U+061C (D8), U+180E (E1),
                // U+200B...U+206F (E2), U+FEFF and U+FFF9...U+FFFB (EF), tags (F3).
                switch byte {
                case 0xC2, 0xD8, 0xE1, 0xE2, 0xEF, 0xF3:
                    guard index + length <= bytes.count else { break }
                    var value = UInt32(byte) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                    for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
                    if let scalar = Unicode.Scalar(value), scalar.isInvisibleOrControl {
                        count += 1
                        if first == nil { first = (line, lineStart) }
                    }
                default:
                    break
                }
                index += length
            }
            guard let first else { return nil }
            var end = first.start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            var shown = String(decoding: UnsafeBufferPointer(rebasing: bytes[first.start..<end]), as: UTF8.self).visible
            if shown.count > 120 { shown = String(shown.prefix(117)) + "…" }
            return (count, first.line, shown)
        }
    }
}
