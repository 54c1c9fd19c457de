import MIMEMessage
import Testing

/// The one header reader (drafts, the outbox, compose) and the one address-list reader.
@Suite struct HeaderSectionTests {
    @Test func fieldsAreReadUpToTheEmptyLine() {
        let message = Array("Subject: Hi\r\nTo: a@x,\r\n\tb@y\r\nBCC : c@z\r\n\r\nBody: not a field\r\n".utf8)
        let header = HeaderSection(message)
        #expect(header.fields.map(\.name) == ["subject", "to", "bcc"])
        #expect(header["Subject"] == "Hi")
        #expect(header["to"] == "a@x,\tb@y")
        #expect(header["bcc"] == "c@z")
        #expect(String(decoding: message[header.bodyStart...], as: UTF8.self) == "Body: not a field\r\n")
        #expect(header.strayLine == nil)
        #expect(header.fields[1].raw == Array("To: a@x,\r\n\tb@y\r\n".utf8))
    }

    @Test func aLineThatIsNoFieldEndsTheHeaderThere() {
        let message = Array("To: a@x\nHello Joe\nSubject: later\n".utf8)
        let header = HeaderSection(message)
        #expect(header.fields.map(\.name) == ["to"])
        #expect(header["subject"] == nil)
        #expect(String(decoding: message[header.bodyStart...], as: UTF8.self) == "Hello Joe\nSubject: later\n")
        #expect(header.strayLine.map { String(decoding: message[$0], as: UTF8.self) } == "Hello Joe")
    }

    @Test func aLineOfSpacesIsTheEmptyLine() {
        let header = HeaderSection(Array("Subject: s\n  \t\nbody".utf8))
        #expect(header["subject"] == "s")
        #expect(header.bodyStart == 15)
    }

    @Test func encodedWordsAreDecodedForShowing() {
        let header = HeaderSection(Array("Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\r\n\r\n".utf8))
        #expect(header.decoded("subject") == "Grüße")
    }

    @Test func addressListsGiveTheirAddrSpecs() {
        #expect(addrSpecs(in: "Joe <joe@x.example>, \"Doe, Jane\" <jane@x.example>".utf8) == ["joe@x.example", "jane@x.example"])
        #expect(addrSpecs(in: "Friends: a@x.example, b@x.example;, c@x.example (work)".utf8) == ["a@x.example", "b@x.example", "c@x.example"])
        #expect(addrSpecs(in: "\"not@me\"@x.example".utf8) == ["\"not@me\"@x.example"])
        #expect(addrSpecs(in: "undisclosed-recipients:;".utf8).isEmpty)
    }
}
