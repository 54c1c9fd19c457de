extension MailtoURL {
    /// The one canonical `mailto:` URL for `email`: every byte outside RFC 6068's `qchar`
    /// set is percent-encoded as UTF-8, so that `parse(encode(x)) == x`.
    ///
    /// What a URL cannot carry is left out: attachments (never written into a URL),
    /// `isBodyHTML` (RFC 6068 has no such field) and `dropped`; a name in `names` for an
    /// address that is not a recipient.
    public static func encode(_ email: EmailData) -> String {
        var out: [UInt8] = Array("mailto:".utf8)
        out.reserveCapacity(64 + (email.body?.utf8.count ?? 0) * 3)
        appendAddressList(email.to.map(email.mailbox), to: &out)
        var separator = UInt8(ascii: "?")
        func field(_ name: String, _ value: String) {
            out.append(separator)
            separator = UInt8(ascii: "&")
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: "="))
            percentEncode(value.utf8, into: &out)
        }
        // Each address with the name given for it (`Asa Berg <asa@example.org>`).
        if !email.cc.isEmpty { field("cc", email.cc.map(email.mailbox).joined(separator: ",")) }
        if !email.bcc.isEmpty { field("bcc", email.bcc.map(email.mailbox).joined(separator: ",")) }
        if let subject = email.subject {
            // A subject that would read as RFC 2047 encoded-words is written as one, so
            // that decoding it gives back exactly this text.
            field("subject", subject.utf8.contains(UInt8(ascii: "=")) && subject.contains("=?")
                ? EncodedWords.encodeBase64UTF8(subject) : subject)
        }
        if let body = email.body { field("body", body) }
        for name in EmailData.safeHeaderNames {
            if let value = email.headers[name], !value.isEmpty { field(name, value) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendAddressList(_ addresses: [String], to out: inout [UInt8]) {
        for (index, address) in addresses.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            percentEncode(address.utf8, into: &out)
        }
    }

    /// Percent-encodes every byte that is not a `qchar` (RFC 6068 §2).
    static func percentEncode(_ bytes: some Sequence<UInt8>, into out: inout [UInt8]) {
        PercentEncoding.encode(bytes, into: &out, keeping: isQChar)
    }

    /// RFC 6068 §2: `qchar = unreserved / pct-encoded / some-delims`, where
    /// `some-delims = "!" / "$" / "'" / "(" / ")" / "*" / "+" / "," / ";" / ":" / "@"`.
    @inline(__always)
    static func isQChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"),
             UInt8(ascii: "@"):
            return true
        default:
            return false
        }
    }
}
