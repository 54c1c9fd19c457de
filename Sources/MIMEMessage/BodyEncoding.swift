internal import MailtoCore

/// Content-Transfer-Encodings for text parts (RFC 2045 §6).
enum BodyEncoding: String {
    case sevenBit = "7bit"
    case quotedPrintable = "quoted-printable"

    /// 7bit when every octet is printable ASCII (or tab) and no line passes 998 octets
    /// (RFC 5322 §2.1.1); quoted-printable otherwise. `text` has CRLF line breaks.
    static func choose(for text: [UInt8]) -> BodyEncoding {
        var lineLength = 0
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == 0x0D, index + 1 < text.count, text[index + 1] == 0x0A {
                lineLength = 0
                index += 2
                continue
            }
            if byte >= 0x7F || (byte < 0x20 && byte != 0x09) { return .quotedPrintable }
            lineLength += 1
            if lineLength > HeaderValue.hardLimit { return .quotedPrintable }
            index += 1
        }
        return .sevenBit
    }

    func encode(_ text: [UInt8]) -> [UInt8] {
        switch self {
        case .sevenBit: text
        case .quotedPrintable: QuotedPrintable.encode(text)
        }
    }
}

/// Every CRLF, bare CR and bare LF as CRLF: SMTP and MIME want CRLF everywhere
/// (RFC 5322 §2.3), and a body file from disk usually has LF.
public func normalizedLineBreaks(_ text: some Sequence<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    var previousCR = false
    for byte in text {
        if byte == 0x0A {
            if !previousCR { out.append(0x0D) }
            out.append(0x0A)
            previousCR = false
        } else if byte == 0x0D {
            if previousCR { out.append(0x0A) }
            out.append(0x0D)
            previousCR = true
        } else {
            if previousCR { out.append(0x0A) }
            out.append(byte)
            previousCR = false
        }
    }
    if previousCR { out.append(0x0A) }
    return out
}

/// RFC 2045 §6.7 quoted-printable, for text with CRLF line breaks: lines of at most 76
/// characters with soft breaks, trailing whitespace encoded.
enum QuotedPrintable {
    static func encode(_ text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count + text.count / 8)
        var lineLength = 0
        var index = 0
        func emit(_ piece: [UInt8]) {
            // Room for the piece and a soft break's `=` (rule 5).
            if lineLength + piece.count > 75 {
                out += [UInt8(ascii: "="), 0x0D, 0x0A]
                lineLength = 0
            }
            out += piece
            lineLength += piece.count
        }
        while index < text.count {
            let byte = text[index]
            if byte == 0x0D, index + 1 < text.count, text[index + 1] == 0x0A {
                out += [0x0D, 0x0A]
                lineLength = 0
                index += 2
                continue
            }
            let atLineEnd = index + 1 == text.count
                || (text[index + 1] == 0x0D && index + 2 < text.count && text[index + 2] == 0x0A)
            let literal = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "="))
                || ((byte == 0x20 || byte == 0x09) && !atLineEnd)
            // A dot or "From " at the start of a line is left alone: libcurl dot-stuffs.
            if literal {
                emit([byte])
            } else {
                emit([UInt8(ascii: "="), Hex.upperDigits[Int(byte >> 4)], Hex.upperDigits[Int(byte & 0x0F)]])
            }
            index += 1
        }
        return out
    }
}

/// A plain-text rendering of an HTML body, for the text/plain alternative: tags removed,
/// block ends as line breaks, script and style dropped, common entities decoded.
enum HTMLText {
    private static let blockTags: Set<String> = [
        "br", "/p", "p", "/div", "/li", "/tr", "/h1", "/h2", "/h3", "/h4", "/h5", "/h6", "/ul", "/ol",
        "/table", "/blockquote", "hr", "/pre",
    ]
    private static let entities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "#39": "'",
    ]

    static func plainText(fromHTML html: String) -> String {
        var out = ""
        var pendingSpace = false
        var skipping: String?
        var index = html.startIndex
        func newline() {
            while out.hasSuffix(" ") { out.removeLast() }
            if !out.isEmpty, !out.hasSuffix("\n") { out += "\n" }
            pendingSpace = false
        }
        while index < html.endIndex {
            let character = html[index]
            if character == "<", let close = html[index...].firstIndex(of: ">") {
                let inside = html[html.index(after: index)..<close]
                let name = String(inside.prefix { !$0.isWhitespace }).asciiLowercased()
                let tag = name.hasSuffix("/") ? String(name.dropLast()) : name
                index = html.index(after: close)
                if let skipped = skipping {
                    if tag == "/" + skipped { skipping = nil }
                    continue
                }
                if tag == "script" || tag == "style" { skipping = tag; continue }
                if tag == "li" { newline(); out += "- "; continue }
                if blockTags.contains(tag) { newline() }
                continue
            }
            index = html.index(after: index)
            if skipping != nil { continue }
            if character.isWhitespace {
                pendingSpace = !out.isEmpty && !out.hasSuffix("\n")
                continue
            }
            if pendingSpace { out += " "; pendingSpace = false }
            if character == "&", let semicolon = html[index...].prefix(10).firstIndex(of: ";") {
                let name = String(html[index..<semicolon])
                if let decoded = entity(name) {
                    out += decoded
                    index = html.index(after: semicolon)
                    continue
                }
            }
            out.append(character)
        }
        while out.hasSuffix(" ") || out.hasSuffix("\n") { out.removeLast() }
        return out
    }

    private static func entity(_ name: String) -> String? {
        if let known = entities[name.asciiLowercased()] { return known }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
    }
}
