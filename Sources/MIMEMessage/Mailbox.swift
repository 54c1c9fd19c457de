internal import MailtoCore
/// One address with an optional display name: `Jane Doe <jane@example.org>`.
public struct Mailbox: Equatable, Hashable, Sendable {
    /// The display name as a person reads it (decoded, unquoted); `nil` when absent.
    public var displayName: String?
    /// The addr-spec as given (domain possibly non-ASCII).
    public var address: String

    /// Checks `address` (see `AddressSyntax.check`) and `displayName` for line breaks.
    public init(_ address: String, displayName: String? = nil) throws(MIMEError) {
        try AddressSyntax.check(address)
        if let displayName { try HeaderValue.checkSafe(displayName, field: tr("display name")) }
        self.address = address
        self.displayName = displayName.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Reads `Name <addr>`, `"Name" <addr>` or a bare `addr` (a config file's `from=`).
    public init(parsing text: String) throws(MIMEError) {
        try HeaderValue.checkSafe(text, field: "address")
        let trimmed = text.trimmingSpaces()
        guard trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") else {
            try self.init(trimmed)
            return
        }
        let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        var name = String(trimmed[..<open]).trimmingSpaces()
        if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") {
            name = String(name.dropFirst().dropLast())
            name = name.replacingBackslashEscapes()
        }
        try self.init(address.trimmingSpaces(), displayName: name.isEmpty ? nil : name)
    }

    /// `Name <address>`, or the address alone, as a person reads it.
    public var readable: String {
        Self.readable(address, name: displayName)
    }

    /// The same for an address and a name kept apart (the recipient history, a link's names),
    /// so that every `Name <address>` a person reads is written in one place.
    public static func readable(_ address: String, name: String?) -> String {
        name.map { "\($0) <\(address)>" } ?? address
    }

    /// The address as it goes on the wire: the domain as an A-label, so that only a
    /// non-ASCII local part needs SMTPUTF8.
    public var asciiAddress: String {
        guard let at = address.lastIndex(of: "@") else { return address }
        return String(address[...at]) + IDNA.asciiDomain(String(address[address.index(after: at)...]))
    }

    /// `address` as a person reads it: the domain's A-labels decoded (`joe@xn--bcher-kva.example`
    /// is `joe@bücher.example`), the local part as written.
    public static func unicodeAddress(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@") else { return address }
        return String(address[...at]) + IDNA.unicodeDomain(String(address[address.index(after: at)...]))
    }

    /// The local part is not ASCII (`jörg@example.org`): the message can only be submitted
    /// with SMTPUTF8 (RFC 6531), and its header fields carry the address as UTF-8 (RFC 6532).
    public var needsSMTPUTF8: Bool {
        address.utf8.prefix { $0 != UInt8(ascii: "@") }.contains { $0 >= 0x80 }
    }

    /// The domain part (after the last `@`).
    public var domain: String {
        guard let at = address.lastIndex(of: "@") else { return "" }
        return String(address[address.index(after: at)...])
    }
}

/// RFC 5321 §4.1.2 / RFC 5322 §3.4.1 addr-spec syntax, as strict as a submission server.
public enum AddressSyntax {
    /// Throws an input error naming the address when it is not `local@domain` with a
    /// dot-atom or quoted local part and a dot-atom or literal domain; CR, LF and NUL
    /// are refused before anything else (docs/design.md rule 4). A dot-atom local part may
    /// hold non-ASCII characters (RFC 6531 §3.3): such an address is kept, in a draft too,
    /// and sent only through a server that offers SMTPUTF8 (`SMTPSession`).
    public static func check(_ address: String) throws(MIMEError) {
        try HeaderValue.checkSafe(address, field: "address")
        let bytes = Array(address.utf8)
        guard !bytes.isEmpty else { throw .input(tr("empty address")) }
        guard bytes.count <= 254 else { throw .input(tr("address longer than 254 octets: %@", address)) }
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1 else {
            throw .input(tr("not an address (no local@domain): %@", address))
        }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        guard local.count <= 64 else { throw .input(tr("local part longer than 64 octets: %@", address)) }
        if local.first == UInt8(ascii: "\"") {
            guard local.count >= 2, local.last == UInt8(ascii: "\"") else {
                throw .input(tr("unterminated quoted local part: %@", address))
            }
            var escaped = false
            for byte in local.dropFirst().dropLast() {
                if byte >= 0x80 || byte < 0x20 || byte == 0x7F {
                    throw .input(tr("non-ASCII or control character in local part: %@", address))
                }
                if escaped { escaped = false; continue }
                if byte == UInt8(ascii: "\\") { escaped = true; continue }
                if byte == UInt8(ascii: "\"") { throw .input(tr("stray quote in local part: %@", address)) }
            }
            if escaped { throw .input(tr("unterminated quoted local part: %@", address)) }
        } else {
            guard isDotAtom(local) else { throw .input(tr("invalid local part: %@", address)) }
        }
        if domain.first == UInt8(ascii: "[") {
            guard domain.last == UInt8(ascii: "]"),
                  domain.dropFirst().dropLast().allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "[")
                      && $0 != UInt8(ascii: "]") && $0 != UInt8(ascii: "\\") })
            else { throw .input(tr("invalid domain literal: %@", address)) }
            return
        }
        for label in domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.count <= 63 || label.contains(where: { $0 >= 0x80 }) else {
                throw .input(tr("invalid domain: %@", address))
            }
            for byte in label where byte < 0x80 {
                let ok = isAlphaNumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                if !ok { throw .input(tr("invalid character in domain: %@", address)) }
            }
        }
    }

    /// RFC 5322 §3.2.3 atext and UTF-8 (RFC 6531 §3.3; the octets of a Swift string are
    /// valid UTF-8), plus `.` between atoms.
    static func isDotAtom(_ bytes: some Collection<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.first != UInt8(ascii: "."), bytes.reversed().first != UInt8(ascii: ".") else {
            return false
        }
        var previousDot = false
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                if previousDot { return false }
                previousDot = true
                continue
            }
            previousDot = false
            guard isAtext(byte) || byte >= 0x80 else { return false }
        }
        return true
    }

    static func isAtext(_ byte: UInt8) -> Bool {
        isAlphaNumeric(byte) || Array("!#$%&'*+-/=?^_`{|}~".utf8).contains(byte)
    }

    static func isAlphaNumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}

extension String {
    func replacingBackslashEscapes() -> String {
        var out = ""
        var escaped = false
        for character in self {
            if !escaped, character == "\\" { escaped = true; continue }
            escaped = false
            out.append(character)
        }
        return out
    }
}
