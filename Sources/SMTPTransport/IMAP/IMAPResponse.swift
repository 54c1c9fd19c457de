import MailtoCore

/// The pieces of IMAP's syntax (RFC 3501 §9) that storing a draft reads and writes: a
/// server's responses, split into words, and the strings mailto-route puts on the wire.
enum IMAPSyntax {
    /// One word of a response: an atom (`OK`, `\Drafts`, `NIL`, `[Gmail]/Drafts`: brackets
    /// are atom characters in a mailbox name, RFC 3501 §9's ASTRING-CHAR), a quoted string
    /// or a literal (their bytes, unescaped), or a parenthesised list.
    indirect enum Word: Equatable {
        case atom(String)
        case string([UInt8])
        case list([Word])

        /// The word as text: an atom's, a string's (UTF-8); `nil` for a list.
        var text: String? {
            switch self {
            case .atom(let atom): atom
            case .string(let bytes): String(decoding: bytes, as: UTF8.self)
            case .list: nil
            }
        }
    }

    /// The words of one response line, its literals (`{n}` CRLF and n bytes) inline, as
    /// `IMAPDialogue` gathers them.
    static func words(_ line: [UInt8]) -> [Word] {
        var index = 0
        return words(line, &index, closing: nil)
    }

    private static func words(_ line: [UInt8], _ index: inout Int, closing: UInt8?) -> [Word] {
        var found: [Word] = []
        while index < line.count {
            let byte = line[index]
            switch byte {
            case UInt8(ascii: " "), 0x0D, 0x0A:
                index += 1
            case UInt8(ascii: "("):
                index += 1
                found.append(.list(words(line, &index, closing: UInt8(ascii: ")"))))
            case UInt8(ascii: ")"):
                index += 1
                if byte == closing { return found }
            case UInt8(ascii: "\""):
                index += 1
                var bytes: [UInt8] = []
                while index < line.count, line[index] != UInt8(ascii: "\"") {
                    if line[index] == UInt8(ascii: "\\"), index + 1 < line.count { index += 1 }
                    bytes.append(line[index])
                    index += 1
                }
                index += 1
                found.append(.string(bytes))
            case UInt8(ascii: "{") where literalSize(line, at: index) != nil:
                let size = literalSize(line, at: index) ?? (index, 0)
                index = min(line.count, size.start + size.count)
                found.append(.string(Array(line[size.start..<index])))
            default:
                let start = index
                while index < line.count, !" ()\r\n".utf8.contains(line[index]) { index += 1 }
                found.append(.atom(String(decoding: line[start..<index], as: UTF8.self)))
            }
        }
        return found
    }

    /// A literal's announcement at `index` (`{12}` CRLF, or `{12+}` CRLF): where its bytes
    /// start and how many; `nil` when there is none there.
    static func literalSize(_ line: [UInt8], at index: Int) -> (start: Int, count: Int)? {
        guard line.indices.contains(index), line[index] == UInt8(ascii: "{"),
              let close = line[index...].firstIndex(of: UInt8(ascii: "}")),
              close + 2 < line.count, line[close + 1] == 0x0D, line[close + 2] == 0x0A,
              let count = Int(String(decoding: line[(index + 1)..<close].filter { $0 != UInt8(ascii: "+") }, as: UTF8.self))
        else { return nil }
        return (close + 3, count)
    }

    /// `text` as an IMAP quoted string (RFC 3501 §4.3: `\` and `"` escaped); `nil` for
    /// text a quoted string cannot carry (CR, LF, NUL, other controls, 8-bit bytes), which
    /// never reaches the wire (docs/design.md rule 4).
    static func quoted(_ text: String) -> String? {
        var out = "\""
        for byte in text.utf8 {
            guard byte >= 0x20, byte < 0x7F else { return nil }
            if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { out.append("\\") }
            out.append(Character(Unicode.Scalar(byte)))
        }
        return out + "\""
    }

    /// A mailbox name as people read it: RFC 3501 §5.1.3's modified UTF-7 decoded
    /// (`Entw&APw-rfe` is `Entwürfe`); the name as it is where it is not well formed.
    static func readableMailbox(_ name: String) -> String {
        var out = ""
        var rest = Substring(name)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let dash = rest[amp...].firstIndex(of: "-") else { return name }
            let encoded = rest[rest.index(after: amp)..<dash]
            if encoded.isEmpty {
                out += "&"
            } else {
                var base64 = encoded.utf8.map { $0 == UInt8(ascii: ",") ? UInt8(ascii: "/") : $0 }
                while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
                guard let bytes = Base64.decode(base64), bytes.count % 2 == 0 else { return name }
                let units = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
                out += String(decoding: units, as: UTF16.self)
            }
            rest = rest[rest.index(after: dash)...]
        }
        return out + rest
    }
}
