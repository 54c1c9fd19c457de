import MailtoCore

/// The header fields of an RFC 5322 message, read from its bytes: only what the outbox
/// and drafts show in a listing (Subject, To, Cc, Date, Message-ID), never the body.
struct MessageHeaders {
    /// Field name in lower case → unfolded value (RFC 5322 §2.2.3), first occurrence kept.
    private var fields: [String: String] = [:]

    /// Reads the header section: up to the first empty line, or the end of `bytes`.
    init<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var lines: [[UInt8]] = []
        var line: [UInt8] = []
        for byte in bytes {
            if byte == 0x0A {
                if line.last == 0x0D { line.removeLast() }
                if line.isEmpty { break }
                lines.append(line)
                line = []
            } else {
                line.append(byte)
            }
        }
        if !line.isEmpty { lines.append(line) }
        var current: (name: String, value: [UInt8])?
        func finish() {
            guard let field = current else { return }
            let value = String(decoding: field.value, as: UTF8.self)
            if fields[field.name] == nil {
                fields[field.name] = value.trimmingSpaces()
            }
        }
        for line in lines {
            // RFC 5322 §2.2.3: a line starting with white space continues the field.
            if let first = line.first, first == 0x20 || first == 0x09 {
                current?.value.append(contentsOf: line)
                continue
            }
            finish()
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                current = nil
                continue
            }
            // `To :` (white space before the colon, RFC 822's obsolete syntax, which a
            // hand-edited draft may have) is still To, as `drafts send` reads it.
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased().trimmingSpaces()
            current = (name, Array(line[(colon + 1)...]))
        }
        finish()
    }

    /// The raw (unfolded) value of a field.
    subscript(name: String) -> String? { fields[name.lowercased()] }

    /// A field for display: encoded-words decoded (RFC 2047).
    func decoded(_ name: String) -> String? {
        self[name].map(EncodedWords.decode)
    }
}
