import MailtoCore
import Testing

@Suite struct EncodingTests {
    @Test func encodesEveryFieldCanonically() {
        let email = EmailData(
            to: ["a@x", #""b, c"@x"#], cc: ["c@x"], bcc: ["d@x"], subject: "Hi & bye = 100% #1?",
            body: "line 1\r\nline 2 + café", headers: ["keywords": "k", "in-reply-to": "<r@x>"])
        #expect(MailtoURL.encode(email) == "mailto:a@x,%22b,%20c%22@x?cc=c@x&bcc=d@x"
            + "&subject=Hi%20%26%20bye%20%3D%20100%25%20%231%3F&body=line%201%0D%0Aline%202%20+%20caf%C3%A9"
            + "&in-reply-to=%3Cr@x%3E&keywords=k")
    }

    @Test func emptyMessageIsTheBareScheme() {
        #expect(MailtoURL.encode(EmailData()) == "mailto:")
        #expect(MailtoURL.encode(EmailData(subject: "")) == "mailto:?subject=")
    }

    @Test func attachmentsAndDroppedFieldsAreNeverWritten() {
        let email = EmailData(to: ["a@x"], attachments: [.file("/etc/passwd")],
                              dropped: [DroppedField(name: "from", reason: .originatorOrTrace)])
        #expect(MailtoURL.encode(email) == "mailto:a@x")
    }

    @Test func subjectThatLooksLikeAnEncodedWordSurvives() throws {
        for subject in ["=?utf-8?q?caf=C3=A9?=", "a =?x?b?c?= d", "=?", "price =?"] {
            #expect(try MailtoURL.parse(MailtoURL.encode(EmailData(subject: subject))).subject == subject)
        }
    }

    @Test func everyByteOutsideQCharIsEncoded() {
        let everything = String(decoding: (UInt8(1)...UInt8(127)).filter { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let url = MailtoURL.encode(EmailData(body: everything))
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$'()*+,;:@%=?&".utf8)
        #expect(url.utf8.allSatisfy { allowed.contains($0) })
    }
}

/// `parse(encode(x)) == x` over generated messages (attachments, `isBodyHTML` and
/// `dropped` aside: a URL carries none of them).
@Suite struct RoundTripPropertyTests {
    @Test(arguments: 0..<8)
    func parseOfEncodeGivesBackTheMessage(seed: Int) throws {
        var generator = MessageGenerator(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        for _ in 0..<250 {
            let email = generator.message()
            let url = MailtoURL.encode(email)
            let parsed = try MailtoURL.parse(url)
            #expect(parsed == email, "\(url)")
            if parsed != email { return }
            #expect(MailtoURL.encode(parsed) == url)
        }
    }
}

/// Messages of the kind a URL can carry, built from pieces that stress the encoder:
/// Unicode, quotes, commas, `&`, `=`, `#`, `%`, `+`, `?`, CRLF, empty fields, long bodies.
struct MessageGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// SplitMix64: small, fast and the same on every machine.
    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    private mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    private static let textPieces = [
        "a", "Z", "0", " ", "  ", "\t", "&", "=", "#", "%", "+", "?", "/", ",", ";", ":", "@", "'", "\"", "\\",
        "%20", "%0D%0A", "=?", "?=", "=?utf-8?q?x?=", "é", "ß", "納豆", "🙂", "\u{202E}", "\u{0}", "\u{7F}",
        "<", ">", "[", "]", "~", "*", "(", ")", "!", "$", "mailto:", "cc=", "&body=",
    ]

    private mutating func text(maxPieces: Int) -> String {
        (0..<below(maxPieces + 1)).map { _ in pick(Self.textPieces) }.joined()
    }

    private mutating func address() -> String {
        let atoms = ["user", "a.b", "x+tag", "o'brien", "first_last", "ü", "名", "a%b", "a&b", "a=b", "a?b", "a/b", "a#b"]
        var local = (0..<(1 + below(2))).map { _ in pick(atoms) }.joined(separator: ".")
        if chance(25) {
            let quotedPieces = ["a", " ", ",", "@", "<", ">", "\\\"", "\\\\", "é", "x,y", "&", "?"]
            local = "\"" + (0..<(1 + below(4))).map { _ in pick(quotedPieces) }.joined() + "\""
        }
        let domains = ["example.org", "an.example", "納豆.example.org", "[192.0.2.1]", "xn--caf-dma.example", "sub.d-ash.example"]
        return local + "@" + pick(domains)
    }

    private mutating func addresses() -> [String] {
        chance(40) ? [] : (0..<(1 + below(3))).map { _ in address() }
    }

    mutating func message() -> EmailData {
        var email = EmailData(to: addresses(), cc: addresses(), bcc: addresses())
        if chance(70) {
            // A URL's subject never holds a line break (they are unfolded when read).
            email.subject = text(maxPieces: 8).replacingLineBreaks()
        }
        if chance(70) {
            var lines = (0..<(1 + below(4))).map { _ in text(maxPieces: 6).replacingLineBreaks() }
            if chance(5) { lines.append(String(repeating: "long line ", count: 2_000)) }
            email.body = lines.joined(separator: "\r\n")
        }
        for name in EmailData.safeHeaderNames where chance(20) {
            let value = text(maxPieces: 4).replacingLineBreaks()
            if !value.isEmpty { email.headers[name] = value }
        }
        return email
    }
}

extension String {
    fileprivate func replacingLineBreaks() -> String {
        String(unicodeScalars.map { $0 == "\r" || $0 == "\n" ? " " : Character($0) })
    }
}
