import MailtoCore
import Testing

/// Each rule of docs/mailto-rules.md.
@Suite struct ParsingRuleTests {
    // MARK: Splitting and decoding

    @Test(arguments: ["MAILTO:a@x", "MailTo:a@x", "mailto:a@x"])
    func schemeIsCaseInsensitive(url: String) throws {
        #expect(try MailtoURL.parse(url).to == ["a@x"])
    }

    @Test(arguments: ["http://example.org", "mailto", "mail:a@x", "", "mailt0:a@x", " mailto:a@x", "mailto;a@x"])
    func otherSchemesAreErrors(url: String) {
        #expect(throws: MailtoURLError(.notMailto, at: 0)) { try MailtoURL.parse(url) }
    }

    @Test func encodedDelimitersAreData() throws {
        let email = try MailtoURL.parse("mailto:a@x?subject=a%26b%3Dc%3Fd%23e&body=%26cc=evil@x")
        #expect(email.subject == "a&b=c?d#e")
        #expect(email.body == "&cc=evil@x")
        #expect(email.cc.isEmpty)
    }

    @Test func onlyTheFirstEqualsSignSplitsAField() throws {
        #expect(try MailtoURL.parse("mailto:a@x?subject=1=2==3").subject == "1=2==3")
    }

    @Test func fragmentIsIgnoredWithEverythingInIt() throws {
        let email = try MailtoURL.parse("mailto:a@x?subject=hi#&cc=evil@x%G1?")
        #expect(email == EmailData(to: ["a@x"], subject: "hi"))
    }

    @Test func plusIsAPlusNeverASpace() throws {
        let email = try MailtoURL.parse("mailto:a+tag@x?subject=1+1&body=a+b")
        #expect(email.to == ["a+tag@x"])
        #expect(email.subject == "1+1")
        #expect(email.body == "a+b")
    }

    @Test func eachPieceIsDecodedExactlyOnce() throws {
        let email = try MailtoURL.parse("mailto:a@x?subject=%2541&%2574o=b@x")
        #expect(email.subject == "%41")
        #expect(email.to == ["a@x"])
        #expect(email.dropped == [DroppedField(name: "%74o", reason: .unknown)])
    }

    @Test func hfieldNamesAreDecodedThenComparedIgnoringASCIICase() throws {
        let email = try MailtoURL.parse("mailto:?%73ubject=hi&TO=a@x&Cc=b@x&BCC=c@x&BoDy=text")
        #expect(email == EmailData(to: ["a@x"], cc: ["b@x"], bcc: ["c@x"], subject: "hi", body: "text"))
    }

    @Test func nonASCIILookalikeNamesAreNotKnownNames() throws {
        // U+017F LATIN SMALL LETTER LONG S upper-cases to S, but only ASCII case counts.
        let email = try MailtoURL.parse("mailto:a@x?%C5%BFubject=hi")
        #expect(email.subject == nil)
        #expect(email.dropped == [DroppedField(name: "ſubject", reason: .unknown)])
    }

    /// A link wrapped across lines in a plain-text mail is the one link, as the WHATWG URL
    /// parser reads it: raw tabs, CRs and LFs are removed wherever they are; encoded ones
    /// are data.
    @Test func rawTabsAndLineBreaksAreRemovedBeforeParsing() throws {
        let email = try MailtoURL.parse("mai\tlto:joe@exam\r\nple.org?sub\nject=Lunch%20on%20\r\n\tFriday&body=a%0D%0Ab%09c")
        #expect(email == EmailData(to: ["joe@example.org"], subject: "Lunch on Friday", body: "a\r\nb\tc"))
    }

    @Test func errorOffsetsCountTheRemovedBytes() {
        #expect(throws: MailtoURLError(.invalidEscape("%G1"), at: 21)) { try MailtoURL.parse("mailto:a@x?\r\nsubject=%G1") }
        #expect(throws: MailtoURLError(.slashInAddress, at: 9)) { try MailtoURL.parse("mailto:\n\t/a@x") }
    }

    @Test func invalidEscapeIsAnErrorWithItsOffset() {
        #expect(throws: MailtoURLError(.invalidEscape("%G1"), at: 19)) {
            try MailtoURL.parse("mailto:a@x?subject=%G1")
        }
    }

    @Test(arguments: [
        ("mailto:a@x?body=abc%", 19, "%"),
        ("mailto:a@x?body=abc%4", 19, "%4"),
        ("mailto:a%zz@x", 8, "%zz"),
        ("mailto:a@x?x-unknown=%q1", 21, "%q1"),
        ("mailto:a@x?attach=%%", 18, "%%"),
        ("mailto:a@x?%4=1", 11, "%4"),
    ])
    func invalidEscapesAreErrorsEverywhere(url: String, offset: Int, text: String) {
        #expect(throws: MailtoURLError(.invalidEscape(text), at: offset)) { try MailtoURL.parse(url) }
    }

    @Test func errorsSayWhatAndWhere() {
        let error = MailtoURLError(.invalidEscape("%G1"), at: 19)
        #expect(error.description == "malformed mailto: URL at offset 19: invalid percent-escape '%G1' (a % must be followed by two hex digits)")
        #expect(error.kind == .input)
    }

    // MARK: Addresses

    @Test func encodedCommaSeparatesAddresses() throws {
        #expect(try MailtoURL.parse("mailto:a@x%2Cb@x").to == ["a@x", "b@x"])
    }

    /// Outlook writes `a@x; b@x`, and people paste its lists into links.
    @Test func semicolonsSeparateAddressesAsCommasDo() throws {
        let email = try MailtoURL.parse("mailto:a@x;b@x?cc=Joe%20%3Cc@x%3E;%20d@x,e@x&bcc=%22f;g%22@x%3Bh@x;")
        #expect(email.to == ["a@x", "b@x"])
        #expect(email.cc == ["c@x", "d@x", "e@x"])
        #expect(email.bcc == [#""f;g"@x"#, "h@x"])
        #expect(email.names == ["c@x": "Joe"])
    }

    @Test func commasInsideQuotesDoNotSeparate() throws {
        #expect(try MailtoURL.parse("mailto:%22Doe,%20J%22@x,b@x").to == [#""Doe, J"@x"#, "b@x"])
    }

    @Test func whitespaceAroundAddressesIsTrimmed() throws {
        #expect(try MailtoURL.parse("mailto:%20a@x%20,%09b@x%20%20").to == ["a@x", "b@x"])
    }

    @Test func displayNamesAreRemoved() throws {
        let email = try MailtoURL.parse("mailto:Joe%20%3Cj@x%3E,%22Doe,%20%3CJane%3E%22%20%3Cjane@x%3E?cc=%3Cc@x%3E")
        #expect(email.to == ["j@x", "jane@x"])
        #expect(email.cc == ["c@x"])
    }

    @Test func emptyAddressesAreSkipped() throws {
        #expect(try MailtoURL.parse("mailto:,a@x,,%20,?to=&cc=").to == ["a@x"])
    }

    @Test func addressOrderIsAddressPartThenEachToField() throws {
        let email = try MailtoURL.parse("mailto:1@x?to=2@x,3@x&cc=c1@x&to=4@x&cc=c2@x&bcc=b1@x&bcc=b2@x")
        #expect(email.to == ["1@x", "2@x", "3@x", "4@x"])
        #expect(email.cc == ["c1@x", "c2@x"])
        #expect(email.bcc == ["b1@x", "b2@x"])
    }

    @Test(arguments: ["%0D", "%0A", "%00", "%0D%0A"])
    func lineBreaksAndNULInAnAddressAreErrors(escape: String) {
        for url in ["mailto:a\(escape)@x", "mailto:?to=a@x\(escape)", "mailto:a@x?cc=b\(escape)@x", "mailto:a@x?bcc=\(escape)b@x"] {
            #expect(throws: MailtoURLError.self) { try MailtoURL.parse(url) }
            #expect((try? MailtoURL.parse(url)) == nil, "\(url)")
        }
    }

    @Test func lineBreakInAnAddressNamesTheField() {
        #expect(throws: MailtoURLError(.controlCharacterInAddress, at: 14)) {
            try MailtoURL.parse("mailto:a@x?cc=b@x%0D%0ABcc:%20spy@evil")
        }
    }

    @Test func invalidUTF8InAnAddressIsAnError() {
        #expect(throws: MailtoURLError(.invalidUTF8InAddress, at: 7)) { try MailtoURL.parse("mailto:a%FF@x") }
        #expect(throws: MailtoURLError(.invalidUTF8InAddress, at: 14)) { try MailtoURL.parse("mailto:a@x?to=%C3@x") }
    }

    @Test func unencodedSlashBeforeQuestionMarkIsAnError() {
        #expect(throws: MailtoURLError(.slashInAddress, at: 7)) { try MailtoURL.parse("mailto://a@x") }
        #expect(throws: MailtoURLError(.slashInAddress, at: 8)) { try MailtoURL.parse("mailto:a/b@x?subject=x") }
    }

    @Test func slashAfterQuestionMarkIsData() throws {
        #expect(try MailtoURL.parse("mailto:a@x?subject=a/b").subject == "a/b")
        #expect(try MailtoURL.parse("mailto:a%2Fb@x").to == ["a/b@x"])
    }

    @Test func secondQuestionMarkIsAnError() {
        #expect(throws: MailtoURLError(.secondQuestionMark, at: 21)) {
            try MailtoURL.parse("mailto:joe@x?cc=bob@x?body=hello")
        }
    }

    @Test func unterminatedQuoteIsAnError() {
        #expect(throws: MailtoURLError(.unterminatedQuote, at: 7)) { try MailtoURL.parse("mailto:%22abc@x,b@x") }
    }

    // MARK: subject, body, headers

    @Test func absentAndEmptyAreDifferent() throws {
        #expect(try MailtoURL.parse("mailto:a@x") == EmailData(to: ["a@x"]))
        let empty = try MailtoURL.parse("mailto:a@x?subject=&body=")
        #expect(empty.subject == "")
        #expect(empty.body == "")
        #expect(try MailtoURL.parse("mailto:a@x?subject").subject == "")
    }

    @Test func lastSubjectWins() throws {
        #expect(try MailtoURL.parse("mailto:a@x?subject=one&subject=two").subject == "two")
    }

    @Test func subjectLineBreaksUnfoldOrBecomeOneSpace() throws {
        #expect(try MailtoURL.parse("mailto:a@x?subject=a%0D%0A%20b").subject == "a b")
        #expect(try MailtoURL.parse("mailto:a@x?subject=a%0D%0Ab").subject == "a b")
        #expect(try MailtoURL.parse("mailto:a@x?subject=a%0Ab%0Dc").subject == "a b c")
        #expect(try MailtoURL.parse("mailto:a@x?subject=a%0A%09b").subject == "a\tb")
        #expect(try MailtoURL.parse("mailto:a@x?subject=a%0D%0A%0D%0Ab").subject == "a  b")
    }

    @Test func encodedWordsAreDecodedAndMayNotSmuggleLineBreaks() throws {
        #expect(try MailtoURL.parse("mailto:a@x?subject=%3D%3Futf-8%3Fb%3FY2Fmw6k%3D%3F%3D").subject == "café")
        #expect(try MailtoURL.parse("mailto:a@x?subject=%3D%3Futf-8%3Fq%3Fa%3D0D%3D0ABcc%3A_x%3F%3D").subject == "a Bcc: x")
        // Adjacent encoded-words join without the white space between them (RFC 2047 §6.2).
        #expect(try MailtoURL.parse("mailto:a@x?subject=%3D%3Futf-8%3Fq%3Fa%3F%3D%20%3D%3Futf-8%3Fq%3Fb%3F%3D").subject == "ab")
        // An unknown charset is left as written.
        #expect(try MailtoURL.parse("mailto:a@x?subject=%3D%3Fx-unknown%3Fq%3Fa%3F%3D").subject == "=?x-unknown?q?a?=")
    }

    @Test func everyBodyLineBreakBecomesCRLF() throws {
        #expect(try MailtoURL.parse("mailto:a@x?body=1%0D%0A2%0A3%0D4%0A%0D5").body == "1\r\n2\r\n3\r\n4\r\n\r\n5")
    }

    @Test func repeatedBodiesAreJoinedWithCRLF() throws {
        #expect(try MailtoURL.parse("mailto:a@x?body=one&body=two&body=").body == "one\r\ntwo\r\n")
    }

    @Test func bodyIsNeverMIMEOrBase64Decoded() throws {
        let email = try MailtoURL.parse("mailto:a@x?body=%3D%3Futf-8%3Fb%3FY2Fmw6k%3D%3F%3D%20%3DC3%3DA9%20Y2Fmw6k%3D")
        #expect(email.body == "=?utf-8?b?Y2Fmw6k=?= =C3=A9 Y2Fmw6k=")
    }

    @Test func safeHeadersAreKeptWithLowerCaseKeysAndLastWins() throws {
        let email = try MailtoURL.parse(
            "mailto:a@x?References=%3Ca@b%3E%0D%0A%20%3Cc@d%3E&KEYWORDS=one&keywords=two&in-reply-to=&In-Reply-To=%3Cr@x%3E")
        #expect(email.headers == ["references": "<a@b> <c@d>", "keywords": "two", "in-reply-to": "<r@x>"])
    }

    @Test func emptyHeaderValuesAreLeftOut() throws {
        #expect(try MailtoURL.parse("mailto:a@x?keywords=").headers.isEmpty)
    }

    @Test func headerValuesArePassedThroughAsWritten() throws {
        #expect(try MailtoURL.parse("mailto:a@x?keywords=%3D%3Futf-8%3Fq%3Fx%3F%3D").headers["keywords"] == "=?utf-8?q?x?=")
    }

    @Test func everythingElseIsDroppedOncePerNameWithAReason() throws {
        let url = "mailto:a@x?from=evil@x&Sender=s&reply-to=r&date=d&message-id=m&received=x&return-path=p"
            + "&Resent-From=x&resent-to=y&mime-version=1.0&content-type=text/html&Content-Transfer-Encoding=base64"
            + "&attach=/etc/passwd&Attachment=file:///etc/shadow&attachments=~/.ssh/id_rsa&x-mailer=x&FROM=again"
        let email = try MailtoURL.parse(url)
        let expected: [(String, DroppedField.Reason)] = [
            ("from", .originatorOrTrace), ("sender", .originatorOrTrace), ("reply-to", .originatorOrTrace),
            ("date", .originatorOrTrace), ("message-id", .originatorOrTrace), ("received", .originatorOrTrace),
            ("return-path", .originatorOrTrace), ("resent-from", .originatorOrTrace), ("resent-to", .originatorOrTrace),
            ("mime-version", .mimeStructure), ("content-type", .mimeStructure),
            ("content-transfer-encoding", .mimeStructure), ("attach", .attachment), ("attachment", .attachment),
            ("attachments", .attachment), ("x-mailer", .unknown),
        ]
        #expect(email.dropped == expected.map { DroppedField(name: $0.0, reason: $0.1) })
        #expect(email.attachments.isEmpty)
        #expect(email.headers.isEmpty)
        #expect(email.to == ["a@x"])
    }

    @Test func invalidUTF8InSubjectAndBodyBecomesReplacementCharacters() throws {
        let email = try MailtoURL.parse("mailto:a@x?subject=a%FFb&body=%C3(")
        #expect(email.subject == "a\u{FFFD}b")
        #expect(email.body == "\u{FFFD}(")
    }

    /// A requested file's name that is not UTF-8 keeps its bytes (a `LocalPath`): a
    /// Latin-1 `é` would otherwise become U+FFFD and name another file.
    @Test func aRequestedFileThatIsNotUTF8KeepsItsBytes() throws {
        let email = try MailtoURL.parse("mailto:?attach=%2Fsrv%2Fcaf%E9%20menu.txt&attach=file:///srv/caf%E9")
        #expect(email.requestedAttachments == ["file:///srv/caf%E9%20menu.txt", "file:///srv/caf%E9"])
        #expect(LocalPath.bytes(email.requestedAttachments[0]) == Array("/srv/caf".utf8) + [0xE9] + Array(" menu.txt".utf8))
        #expect(LocalPath.display(email.requestedAttachments[0]) == "/srv/caf\u{FFFD} menu.txt")
        #expect(LocalPath.text(Array("/srv/café".utf8)) == "/srv/café")
    }

    @Test func nulNeverTruncatesAValue() throws {
        let email = try MailtoURL.parse("mailto:a@x?subject=a%00b&body=c%00d")
        #expect(email.subject == "a\u{0}b")
        #expect(email.body == "c\u{0}d")
    }
}

/// The names given with addresses: kept beside the bare addr-specs (which are all that
/// `to`, `cc`, `bcc` and `parse --json` hold, docs/mailto-rules.md), and written back.
@Suite struct DisplayNameTests {
    @Test func aLinksNamesAreKeptBesideItsBareAddresses() throws {
        let email = try MailtoURL.parse(
            "mailto:Asa%20Berg%20%3Casa@example.org%3E,ann@example.org?cc=%22Berg,%20Eva%22%20%3Ceva@example.org%3E"
                + "&bcc=J%C3%BCrgen%20Gro%C3%9F%3Cj@example.org%3E")
        #expect(email.to == ["asa@example.org", "ann@example.org"])
        #expect(email.cc == ["eva@example.org"])
        #expect(email.bcc == ["j@example.org"])
        #expect(email.names == ["asa@example.org": "Asa Berg", "eva@example.org": "Berg, Eva", "j@example.org": "Jürgen Groß"])
        var printed: [UInt8] = []
        email.json.write(to: &printed)
        #expect(!String(decoding: printed, as: UTF8.self).contains("Asa Berg"), "parse --json's shape has no names")
    }

    @Test(arguments: ["Asa Berg", "Berg, Asa", "a \"b\" c", "back\\slash", " padded ", "x <y>", "Jürgen Groß", "=?utf-8?q?x?="])
    func aNameComesBackFromItsURL(name: String) throws {
        let email = EmailData(to: ["asa@example.org"], cc: ["eva@example.org"], names: ["asa@example.org": name, "eva@example.org": name])
        #expect(try MailtoURL.parse(MailtoURL.encode(email)) == email)
    }

    @Test func typedRecipientsAreReadAsALinksAre() throws {
        var email = EmailData()
        try email.addRecipients("Asa Berg <asa@example.org>, \"Berg, Eva\" <eva@example.org>", to: \.to)
        try email.addRecipients("ann@example.org", to: \.cc)
        #expect(email.to == ["asa@example.org", "eva@example.org"] && email.cc == ["ann@example.org"])
        #expect(email.mailbox("eva@example.org") == "\"Berg, Eva\" <eva@example.org>")
        #expect(email.mailbox("ann@example.org") == "ann@example.org")
        #expect(throws: Failure.self) { try email.addRecipients("Asa \"Berg <asa@example.org>", to: \.to) }
    }
}
