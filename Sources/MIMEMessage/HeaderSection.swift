internal import MailtoCore

/// The header section of an RFC 5322 message (a draft, an outbox entry, what the user wrote
/// in `compose`), read by one rule everywhere (RFC 5322 §2.2):
/// - lines end with CRLF or a bare LF;
/// - a line that starts with a space or tab continues the field above it (§2.2.3);
/// - `Name: value` starts a field: the name is printable ASCII without spaces, compared in
///   lower case; white space before the colon is allowed (RFC 822's obsolete `Bcc :`, which
///   a hand-edited draft may have: it is still Bcc and must never be sent on);
/// - the header ends at the first empty line (also one of spaces only, which editors leave),
///   or at a line that is no field (a message written without the empty line).
public struct HeaderSection: Sendable {
    public struct Field: Sendable {
        /// In lower case.
        public var name: String
        /// After the colon, continuation lines joined on (without their line breaks).
        public var value: [UInt8]
        /// The field's lines as written, line breaks included.
        public var raw: [UInt8]

        /// The value as text, without the white space around it.
        public var text: String { String(decoding: value, as: UTF8.self).trimmingSpaces() }
    }

    public private(set) var fields: [Field] = []
    /// Where the body starts: after the empty line, or at the line that is no field.
    public private(set) var bodyStart: Int
    /// The line that ended the header when it was no field and not empty, else `nil`.
    public private(set) var strayLine: Range<Int>?

    public init<Bytes: RandomAccessCollection>(_ message: Bytes) where Bytes.Element == UInt8, Bytes.Index == Int {
        var start = message.startIndex
        bodyStart = message.endIndex
        while start < message.endIndex {
            let newline = message[start...].firstIndex(of: 0x0A)
            let lineEnd = newline.map { $0 + 1 } ?? message.endIndex
            var contentEnd = newline ?? message.endIndex
            if contentEnd > start, message[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let line = message[start..<contentEnd]
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                bodyStart = lineEnd
                return
            }
            if let first = line.first, first == 0x20 || first == 0x09, !fields.isEmpty {
                fields[fields.count - 1].value += line
                fields[fields.count - 1].raw += message[start..<lineEnd]
            } else if let name = Self.name(of: line) {
                let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? contentEnd
                fields.append(Field(name: name, value: Array(line[(colon + 1)...]), raw: Array(message[start..<lineEnd])))
            } else {
                bodyStart = start
                strayLine = start..<contentEnd
                return
            }
            start = lineEnd
        }
    }

    /// The lower-case name of a `Name: value` line, or `nil` when the line is none.
    static func name<Line: Collection>(of line: Line) -> String? where Line.Element == UInt8 {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = String(decoding: line[..<colon], as: UTF8.self).asciiLowercased().trimmingSpaces()
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return name
    }

    /// The first field called `name` (any case), as text.
    public subscript(name: String) -> String? {
        let key = name.asciiLowercased()
        return fields.first { $0.name == key }?.text
    }

    /// The same, encoded-words decoded (RFC 2047), for showing.
    public func decoded(_ name: String) -> String? {
        self[name].map(EncodedWords.decode)
    }
}

/// The addresses of an address list (RFC 5322 §3.4), as bare addr-specs: commas outside
/// quotes, angle brackets and comments separate; `Name <addr>` gives `addr`; a group gives
/// its members; comments are left out.
public func addrSpecs<Bytes: Sequence>(in value: Bytes) -> [String] where Bytes.Element == UInt8 {
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
