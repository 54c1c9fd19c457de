import MailtoRoute
import Testing

/// What `compose` reads back from the editor, in-process.
@Suite struct ComposeReaderTests {
    @Test func fieldsAddressesAndBodyAreRead() throws {
        let email = try Compose.email(from: """
            To: Joe <joe@example.com>, ann@example.net
            cc: "Doe, Jane" <jane@example.org>
            Bcc:
            Subject: Hello
              there
            In-Reply-To: <a@b>

            line 1
            line 2
            """, original: EmailData())
        #expect(email.to == ["joe@example.com", "ann@example.net"])
        #expect(email.cc == ["jane@example.org"])
        #expect(email.bcc.isEmpty)
        #expect(email.subject == "Hello there")
        #expect(email.headers == ["in-reply-to": "<a@b>"])
        #expect(email.body == "line 1\r\nline 2")
    }

    @Test func aFieldTheHeaderDoesNotTakeIsAnError() {
        #expect(throws: ComposeError.self) { try Compose.email(from: "To: a@x\nFrom: evil@x\n\nbody", original: EmailData()) }
    }

    @Test func aWrappedAddressLineIsAnErrorNotABody() {
        #expect(throws: ComposeError.self) {
            try Compose.email(from: "To: a@x,\nb@y\nSubject: s\n\nbody", original: EmailData())
        }
    }

    @Test func aMissingEmptyLineStartsTheBodyAtTheFirstOtherLine() throws {
        let email = try Compose.email(from: "To: a@x\nHello Joe\n", original: EmailData())
        #expect(email.to == ["a@x"])
        #expect(email.body == "Hello Joe\r\n")
    }

    @Test func aLineOfSpacesIsTheEmptyLine() throws {
        let email = try Compose.email(from: "Subject: s\n   \nbody", original: EmailData())
        #expect(email.subject == "s")
        #expect(email.body == "body")
    }

    @Test func theTextOfAMessageReadsBackAsIt() throws {
        let start = EmailData(to: ["a@x.example"], cc: ["c@x.example"], subject: "Hi", body: "one\r\ntwo",
                              headers: ["references": "<r@x>"])
        let email = try Compose.email(from: Compose.text(of: start), original: start)
        #expect(email == start)
    }
}
