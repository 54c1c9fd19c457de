/// A display name beside an address, as RFC 5322 §3.4 writes one in text (a URL, a field
/// of the sheet, a mail program's command line): the one place that formats `Name <addr>`.
/// In a message header the builder encodes it instead (RFC 2047, MIMEMessage).
public enum DisplayName {
    /// `name <address>`, the name quoted (RFC 5322 §3.2.4) when it holds a character that
    /// would end or split a phrase, so that reading it back gives `name` again.
    public static func mailbox(_ name: String, _ address: String) -> String {
        "\(phrase(name)) <\(address)>"
    }

    /// `name` as written before an address: as it is when that reads back the same,
    /// else in double quotes with `\` and `"` escaped.
    public static func phrase(_ name: String) -> String {
        let plain = !name.utf8.contains { specials.contains($0) } && name.first?.isWhitespace == false
            && name.last?.isWhitespace == false
        if plain { return name }
        var quoted = "\""
        for character in name {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// The name in a phrase as written (`"Berg, Asa"`, `Asa Berg`): trimmed, and unquoted
    /// with its escapes undone when the whole of it is one quoted string; `nil` when empty.
    public static func reading(_ phrase: some Collection<UInt8>) -> String? {
        var bytes = Array(phrase)[...]
        while let first = bytes.first, first.isASCIIWhitespace { bytes = bytes.dropFirst() }
        while let last = bytes.last, last.isASCIIWhitespace { bytes = bytes.dropLast() }
        if bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\""), isOneQuotedString(bytes) {
            var unquoted: [UInt8] = []
            var escaped = false
            for byte in bytes.dropFirst().dropLast() {
                if !escaped, byte == UInt8(ascii: "\\") { escaped = true; continue }
                escaped = false
                unquoted.append(byte)
            }
            bytes = unquoted[...]
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `bytes` (starting and ending with `"`) is one quoted string, not two.
    private static func isOneQuotedString(_ bytes: ArraySlice<UInt8>) -> Bool {
        var escaped = false
        for byte in bytes.dropFirst().dropLast() {
            if escaped { escaped = false; continue }
            if byte == UInt8(ascii: "\\") { escaped = true; continue }
            if byte == UInt8(ascii: "\"") { return false }
        }
        return !escaped
    }

    /// RFC 5322 §3.2.3 specials, which a name written unquoted may not hold.
    private static let specials = Set("()<>[]:;@\\,.\"".utf8)
}

extension EmailData {
    /// Adds the addresses of `text`, an address list as a person types it (`Asa Berg
    /// <asa@example.org>, ann@example.org`), to the list at `field`, and the names given
    /// with them to `names`: read by exactly the rules of a URL's `to=` (docs/mailto-rules.md),
    /// so that a name typed anywhere is kept the same way. A line break, NUL or unclosed
    /// quote is an input error that names the text.
    public mutating func addRecipients(_ text: String, to field: WritableKeyPath<EmailData, [String]>) throws(Failure) {
        var url = Array("mailto:?to=".utf8)
        MailtoURL.percentEncode(text.utf8, into: &url)
        do {
            let read = try MailtoURL.parse(String(decoding: url, as: UTF8.self))
            self[keyPath: field] += read.to
            names.merge(read.names) { $1 }
        } catch {
            throw Failure(kind: .input, message: "'\(text.visible)': \(error.problem)")
        }
    }
}
