import MailtoCore
import Testing

/// Every example URL of RFC 6068 §6, read as the RFC says it is meant.
@Suite struct RFC6068ExampleTests {
    @Test func plainAddress() throws {
        #expect(try MailtoURL.parse("mailto:chris@example.com") == EmailData(to: ["chris@example.com"]))
    }

    @Test func subjectOnly() throws {
        let email = try MailtoURL.parse("mailto:infobot@example.com?subject=current-issue")
        #expect(email == EmailData(to: ["infobot@example.com"], subject: "current-issue"))
    }

    @Test func bodyWithEncodedSpace() throws {
        let email = try MailtoURL.parse("mailto:infobot@example.com?body=send%20current-issue")
        #expect(email.body == "send current-issue")
    }

    @Test func bodyWithTwoLines() throws {
        let email = try MailtoURL.parse("mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index")
        #expect(email.body == "send current-issue\r\nsend index")
    }

    @Test func inReplyToIsKeptAsAHeader() throws {
        let email = try MailtoURL.parse("mailto:list@example.org?In-Reply-To=%3C3469A91.D10AF4C@example.com%3E")
        #expect(email.to == ["list@example.org"])
        #expect(email.headers == ["in-reply-to": "<3469A91.D10AF4C@example.com>"])
        #expect(email.dropped.isEmpty)
    }

    @Test func subscribeBody() throws {
        let email = try MailtoURL.parse("mailto:majordomo@example.com?body=subscribe%20bamboo-l")
        #expect(email == EmailData(to: ["majordomo@example.com"], body: "subscribe bamboo-l"))
    }

    @Test func ccAndBody() throws {
        let email = try MailtoURL.parse("mailto:joe@example.com?cc=bob@example.com&body=hello")
        #expect(email == EmailData(to: ["joe@example.com"], cc: ["bob@example.com"], body: "hello"))
    }

    @Test func percentSignInLocalPart() throws {
        #expect(try MailtoURL.parse("mailto:gorby%25kremvax@example.com").to == ["gorby%kremvax@example.com"])
    }

    @Test func encodedQuestionMarkInAddressAndUnknownField() throws {
        let email = try MailtoURL.parse("mailto:unlikely%3Faddress@example.com?blat=foop")
        #expect(email.to == ["unlikely?address@example.com"])
        #expect(email.dropped == [DroppedField(name: "blat", reason: .unknown)])
    }

    @Test func encodedAmpersandInAddress() throws {
        #expect(try MailtoURL.parse("mailto:Mike%26family@example.org").to == ["Mike&family@example.org"])
    }

    @Test(arguments: [
        "mailto:?to=addr1@an.example,addr2@an.example",
        "mailto:addr1@an.example,addr2@an.example",
        "mailto:addr1@an.example?to=addr2@an.example",
    ])
    func multipleRecipientsAreTheSameInEveryForm(url: String) throws {
        #expect(try MailtoURL.parse(url).to == ["addr1@an.example", "addr2@an.example"])
    }

    @Test func quotedLocalPartWithAt() throws {
        #expect(try MailtoURL.parse("mailto:%22not%40me%22@example.org").to == [#""not@me"@example.org"#])
    }

    @Test func quotedLocalPartWithBackslashes() throws {
        #expect(try MailtoURL.parse("mailto:%22oh%5C%5Cno%22@example.org").to == [#""oh\\no"@example.org"#])
    }

    @Test func quotedLocalPartWithEscapedQuotesAndSpace() throws {
        let email = try MailtoURL.parse("mailto:%22%5C%5C%5C%22it's%5C%20ugly%5C%5C%5C%22%22@example.org")
        #expect(email.to == [#""\\\"it's\ ugly\\\""@example.org"#])
    }

    /// RFC 6068 §6.3: these three are the same subject.
    @Test(arguments: [
        "mailto:user@example.org?subject=caf%C3%A9",
        "mailto:user@example.org?subject=%3D%3Futf-8%3FQ%3Fcaf%3DC3%3DA9%3F%3D",
        "mailto:user@example.org?subject=%3D%3Fiso-8859-1%3FQ%3Fcaf%3DE9%3F%3D",
    ])
    func subjectFormsAreTheSame(url: String) throws {
        #expect(try MailtoURL.parse(url).subject == "café")
    }

    @Test func utf8SubjectAndBody() throws {
        let email = try MailtoURL.parse("mailto:user@example.org?subject=caf%C3%A9&body=caf%C3%A9")
        #expect(email.subject == "café")
        #expect(email.body == "café")
    }

    @Test func internationalDomainStaysUnicode() throws {
        let email = try MailtoURL.parse("mailto:user@%E7%B4%8D%E8%B1%86.example.org?subject=Test&body=NATTO")
        #expect(email == EmailData(to: ["user@納豆.example.org"], subject: "Test", body: "NATTO"))
    }
}
