/// RFC 2047 encoded-words (`=?charset?Q|B?text?=`), which RFC 6068 §6.3 treats as the same
/// subject as the text they encode.
public enum EncodedWords {
    /// Decodes every well-formed encoded-word in `text`. Whitespace between two adjacent
    /// encoded-words is removed (RFC 2047 §6.2); a word with an unknown charset or a bad
    /// encoding is left as it is written.
    public static func decode(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        var pendingWhitespace: Range<Int>?
        var lastWasWord = false
        while index < bytes.count {
            if let (decoded, end) = word(in: bytes, at: index) {
                if let gap = pendingWhitespace, !lastWasWord {
                    out.append(contentsOf: bytes[gap])
                }
                out.append(contentsOf: decoded)
                pendingWhitespace = nil
                lastWasWord = true
                index = end
                continue
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                let start = index
                while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                    index += 1
                }
                if let previous = pendingWhitespace {
                    out.append(contentsOf: bytes[previous])
                }
                // Held back: dropped if an encoded-word follows one.
                if lastWasWord {
                    pendingWhitespace = start..<index
                } else {
                    out.append(contentsOf: bytes[start..<index])
                    pendingWhitespace = nil
                }
                continue
            }
            if let gap = pendingWhitespace {
                out.append(contentsOf: bytes[gap])
                pendingWhitespace = nil
            }
            lastWasWord = false
            out.append(byte)
            index += 1
        }
        if let gap = pendingWhitespace {
            out.append(contentsOf: bytes[gap])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `=?utf-8?B?...?=` for `text`: how the encoder protects a subject that would otherwise
    /// read as encoded-words.
    public static func encodeBase64UTF8(_ text: String) -> String {
        encodeBase64UTF8(bytes: Array(text.utf8))
    }

    /// `=?utf-8?B?...?=` for UTF-8 `bytes` (whole characters: RFC 2047 §5).
    public static func encodeBase64UTF8(bytes: [UInt8]) -> String {
        "=?utf-8?B?" + Base64.encode(bytes) + "?="
    }

    /// The decoded UTF-8 of the encoded-word starting at `start`, and where it ends.
    private static func word(in bytes: [UInt8], at start: Int) -> ([UInt8], Int)? {
        guard start + 1 < bytes.count, bytes[start] == UInt8(ascii: "="), bytes[start + 1] == UInt8(ascii: "?") else {
            return nil
        }
        // =?charset?encoding?text?=
        var index = start + 2
        let charsetStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "?") {
            if bytes[index] <= 0x20 || bytes[index] >= 0x7F { return nil }
            index += 1
        }
        guard index + 2 < bytes.count, bytes[index + 2] == UInt8(ascii: "?") else { return nil }
        var charset = String(decoding: bytes[charsetStart..<index], as: UTF8.self).asciiLowercased()
        // RFC 2231 §5: `charset*language`.
        if let star = charset.firstIndex(of: "*") { charset = String(charset[..<star]) }
        let encoding = bytes[index + 1] | 0x20
        index += 3
        let textStart = index
        while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "?") && bytes[index + 1] == UInt8(ascii: "=")) {
            if bytes[index] <= 0x20 || bytes[index] >= 0x7F { return nil }
            index += 1
        }
        guard index + 1 < bytes.count else { return nil }
        let encoded = bytes[textStart..<index]
        let raw: [UInt8]?
        switch encoding {
        case UInt8(ascii: "b"): raw = Base64.decode(encoded)
        case UInt8(ascii: "q"): raw = decodeQ(encoded)
        default: raw = nil
        }
        guard let raw, let utf8 = Charsets.utf8(from: raw, charset: charset) else { return nil }
        return (utf8, index + 2)
    }

    /// RFC 2047 §4.2: `_` is a space, `=XX` a byte.
    private static func decodeQ(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "_") {
                out.append(UInt8(ascii: " "))
                index += 1
            } else if byte == UInt8(ascii: "=") {
                guard index + 2 < text.endIndex,
                      let high = Hex.value(text[index + 1]),
                      let low = Hex.value(text[index + 2])
                else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }
}

/// The charsets an encoded-word in a clicked link realistically uses.
enum Charsets {
    static func utf8(from bytes: [UInt8], charset: String) -> [UInt8]? {
        switch charset {
        case "utf-8", "utf8":
            return Array(String(decoding: bytes, as: UTF8.self).utf8)
        case "us-ascii", "ascii":
            return bytes.contains(where: { $0 >= 0x80 }) ? nil : bytes
        case "iso-8859-1", "latin1", "iso_8859-1", "l1":
            return scalars(bytes) { Unicode.Scalar($0) }
        case "iso-8859-15", "latin-9", "latin9":
            return scalars(bytes) { Unicode.Scalar(latin9[$0] ?? UInt32($0)) }
        case "windows-1252", "cp1252":
            return scalars(bytes) { byte in
                guard byte >= 0x80, byte < 0xA0 else { return Unicode.Scalar(byte) }
                return Unicode.Scalar(cp1252High[Int(byte - 0x80)])
            }
        default:
            return nil
        }
    }

    private static func scalars(_ bytes: [UInt8], _ map: (UInt8) -> Unicode.Scalar?) -> [UInt8]? {
        var text = String.UnicodeScalarView()
        for byte in bytes {
            guard let scalar = map(byte) else { return nil }
            text.append(scalar)
        }
        return Array(String(text).utf8)
    }

    /// Where ISO-8859-15 differs from ISO-8859-1.
    private static let latin9: [UInt8: UInt32] = [
        0xA4: 0x20AC, 0xA6: 0x0160, 0xA8: 0x0161, 0xB4: 0x017D, 0xB8: 0x017E, 0xBC: 0x0152, 0xBD: 0x0153, 0xBE: 0x0178,
    ]

    /// Windows-1252 0x80-0x9F; the five unassigned bytes map to the C1 controls, as WHATWG does.
    private static let cp1252High: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D,
        0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x009D, 0x017E, 0x0178,
    ]
}
