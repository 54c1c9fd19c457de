internal import MailtoCore

/// Header fields written safely: every value is checked for CR, LF and NUL (refused, never
/// stripped: docs/design.md rule 4), encoded with RFC 2047 where it is not plain ASCII, and
/// folded at whitespace to 78 columns (RFC 5322 §2.1.1), never past 998.
enum HeaderValue {
    static let softLimit = 78
    static let hardLimit = 998

    /// Refuses CR, LF and NUL in a value that came from outside.
    static func checkSafe(_ value: String, field: String) throws(MIMEError) {
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
            throw .input(tr("%@ contains a line break or NUL: %@", field, value.visible))
        }
    }

    /// `true` when `text` can be written as it is in unstructured text: printable ASCII,
    /// single spaces between words, no word that reads as an encoded-word, no word too
    /// long to fold.
    static func isPlainUnstructured(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return false }
        if bytes.first == UInt8(ascii: " ") || bytes.last == UInt8(ascii: " ") { return false }
        var previousSpace = false
        var wordLength = 0
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: " ") {
                if previousSpace { return false }
                previousSpace = true
                wordLength = 0
                continue
            }
            previousSpace = false
            wordLength += 1
            if wordLength > softLimit - 12 { return false }
            if byte == UInt8(ascii: "="), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "?") { return false }
        }
        return true
    }

    /// RFC 2047 §5(1) `=?utf-8?B?...?=` words for `text`, each at most 75 characters and
    /// never splitting a UTF-8 sequence (§5: "each encoded-word MUST represent an
    /// integral number of characters").
    static func encodedWords(_ text: String) -> [String] {
        // 42 octets are 56 base64 characters, a 68-character word: short enough that
        // even `Keywords: ` and the first word fit in 78 columns.
        let maxOctets = 42
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            if chunk.count + encoded.count > maxOctets {
                words.append(EncodedWords.encodeBase64UTF8(bytes: chunk))
                chunk.removeAll(keepingCapacity: true)
            }
            chunk += encoded
        }
        if !chunk.isEmpty || words.isEmpty { words.append(EncodedWords.encodeBase64UTF8(bytes: chunk)) }
        return words
    }

    /// The words of an unstructured value (Subject, Keywords): as they are when plain,
    /// else encoded-words.
    static func unstructuredWords(_ text: String) -> [String] {
        if isPlainUnstructured(text) {
            return text.split(separator: " ").map(String.init)
        }
        return encodedWords(text)
    }

    /// A display name as a phrase (RFC 5322 §3.2.5): atoms as they are, a quoted-string
    /// when it has specials, encoded-words when it is not ASCII.
    static func phraseWords(_ name: String) -> [String] {
        let bytes = Array(name.utf8)
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return encodedWords(name) }
        let atoms = name.split(separator: " ", omittingEmptySubsequences: false)
        if isPlainUnstructured(name), atoms.allSatisfy({ $0.utf8.allSatisfy(AddressSyntax.isAtext) }) {
            return atoms.map(String.init)
        }
        var quoted = "\""
        for character in name {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        quoted.append("\"")
        if quoted.utf8.count > hardLimit - 40 { return encodedWords(name) }
        return [quoted]
    }

    /// `Name <addr>` or `addr`, as words, with the domain as an A-label.
    static func mailboxWords(_ mailbox: Mailbox) -> [String] {
        guard let name = mailbox.displayName else { return [mailbox.asciiAddress] }
        return phraseWords(name) + ["<" + mailbox.asciiAddress + ">"]
    }

    /// `name: word word ...`, CRLF-terminated, folded before a word that would pass 78
    /// columns. Throws when a single word would take a line past 998 octets.
    static func field(_ name: String, _ words: [String]) throws(MIMEError) -> [UInt8] {
        var out = Array(name.utf8)
        out.append(UInt8(ascii: ":"))
        var lineLength = out.count
        for word in words {
            let length = word.utf8.count
            if lineLength + 1 + length > softLimit, lineLength > name.utf8.count + 1 {
                out += [0x0D, 0x0A]
                lineLength = 0
            }
            out.append(UInt8(ascii: " "))
            out += word.utf8
            lineLength += 1 + length
            if lineLength > hardLimit {
                throw .input(tr("%@ has a word too long for one line (over %@ octets)", name, hardLimit))
            }
        }
        out += [0x0D, 0x0A]
        return out
    }
}
