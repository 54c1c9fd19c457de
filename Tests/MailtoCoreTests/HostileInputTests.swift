import MailtoCore
import Testing

/// What a hostile page can put in a link: nothing of it may reach a header, an SMTP
/// command or a local file, and nothing may be cut short.
@Suite struct HostileInputTests {
    /// Header and SMTP injection through every field: an address refuses it, a subject or
    /// header field flattens it to a space.
    @Test(arguments: ["%0D%0A", "%0A", "%0D", "%0D%0A%0D%0A", "%E2%80%A8"])
    func lineBreakInjectionNeverReachesASingleLineField(breakText: String) throws {
        let injected = "x\(breakText)Bcc:%20spy@evil.example"
        for field in ["to", "cc", "bcc"] where breakText.hasPrefix("%0") {
            #expect(throws: MailtoURLError.self) { try MailtoURL.parse("mailto:a@x?\(field)=\(injected)") }
        }
        let email = try MailtoURL.parse("mailto:a@x?subject=\(injected)&in-reply-to=\(injected)&references=\(injected)")
        for value in [email.subject, email.headers["in-reply-to"], email.headers["references"]] {
            let text = try #require(value)
            #expect(!text.contains("\r") && !text.contains("\n"), "\(text.debugDescription)")
            #expect(text.hasSuffix("Bcc: spy@evil.example"))
        }
        #expect(email.bcc.isEmpty)
    }

    @Test func nulInAnAddressIsRefused() {
        #expect(throws: MailtoURLError(.controlCharacterInAddress, at: 7)) { try MailtoURL.parse("mailto:a%00@x") }
    }

    @Test(arguments: [
        "attach=/etc/passwd", "attachment=file:///etc/shadow", "Attach=%2Fhome%2Fuser%2F.ssh%2Fid_rsa",
        "attachments=~/.gnupg/secring.gpg", "ATTACHMENT=..%2F..%2Fetc%2Fpasswd",
    ])
    func attachmentsAreNeverTakenFromAURL(field: String) throws {
        let email = try MailtoURL.parse("mailto:a@x?\(field)&subject=s")
        #expect(email.attachments.isEmpty)
        #expect(email.dropped.count == 1)
        #expect(email.dropped.first?.reason == .attachment)
        #expect(email.subject == "s")
    }

    @Test func requestedAttachmentsAreKeptApartAndNeverAttached() throws {
        let email = try MailtoURL.parse("mailto:a@x?attach=%2Fetc%2Fpasswd&Attachment=file:///tmp/a%20b&attach=&attachments=~/x")
        #expect(email.attachments.isEmpty)
        #expect(email.requestedAttachments == ["/etc/passwd", "file:///tmp/a b", "~/x"])
        #expect(!MailtoURL.encode(email).contains("attach"))
    }

    @Test func originatorAndTraceFieldsNeverBecomeHeaders() throws {
        let email = try MailtoURL.parse("mailto:a@x?From=ceo@bank.example&Reply-To=phish@evil&Return-Path=x&Sender=y")
        #expect(email.headers.isEmpty)
        #expect(email.dropped.map(\.name) == ["from", "reply-to", "return-path", "sender"])
        #expect(email.dropped.allSatisfy { $0.reason == .originatorOrTrace })
    }

    @Test func commaAndQuoteTricksCannotAddRecipients() throws {
        // The quotes are part of one quoted local part, so the comma inside adds nobody.
        let email = try MailtoURL.parse("mailto:%22a@x,evil@y%22@x")
        #expect(email.to == [#""a@x,evil@y"@x"#])
    }

    @Test func oneMegabyteBodyIsKeptWhole() throws {
        let line = String(repeating: "0123456789abcdef", count: 4) // 64 bytes
        let lines = 16_384 // 1 MiB of text plus line breaks
        let url = "mailto:a@x?body=" + Array(repeating: line, count: lines).joined(separator: "%0A")
        let body = try #require(try MailtoURL.parse(url).body)
        #expect(body.utf8.count == lines * 64 + (lines - 1) * 2)
        #expect(body.hasSuffix(line))
        #expect(try MailtoURL.parse(MailtoURL.encode(EmailData(to: ["a@x"], body: body))).body == body)
    }

    @Test func hundredKilobyteAddressListIsKeptWhole() throws {
        let addresses = (0..<5_000).map { "user\($0)@example.org" }
        let url = "mailto:" + addresses.joined(separator: ",")
        #expect(url.utf8.count > 100_000)
        let email = try MailtoURL.parse(url)
        #expect(email.to == addresses)
        #expect(try MailtoURL.parse("mailto:?cc=" + addresses.joined(separator: "%2C")).cc == addresses)
    }

    /// Line and paragraph separators would fake a line of a consent question.
    @Test(arguments: ["\u{2028}", "\u{2029}", "\u{AD}", "\u{E0041}", "\u{FFF9}", "\u{180E}"])
    func separatorsAndInvisibleFormatCharactersAreShownEscaped(character: String) {
        let shown = "a\(character)To: ceo@corp".visible
        #expect(!shown.contains(character))
        #expect(shown.hasPrefix("a\\u{"))
    }

    @Test func bidiAndInvisibleCharactersAreShownEscaped() throws {
        let email = try MailtoURL.parse("mailto:a@x?subject=invoice%E2%80%AEfdp.exe%E2%80%8B&body=ok%07")
        #expect(email.readableLines.contains("Subject:     invoice\\u{202E}fdp.exe\\u{200B}"))
        #expect(email.readableLines.contains("  ok\\u{7}"))
    }
}
