import MailtoCore
import Testing

/// RFC 3676 §4.3: the signature goes below a new message after `-- ` on a line of its own;
/// a body that has a separator line already gets none.
@Suite struct SignatureTests {
    @Test func signatureGoesBelowTheMessageAfterDashDashSpaceOnce() {
        #expect(Signature.appended("Jane\nExample Org", to: "") == "\n\n-- \nJane\nExample Org")
        #expect(Signature.appended("Jane", to: "Hello") == "Hello\n\n-- \nJane")
        #expect(Signature.appended("Jane\r\nOrg", to: "Hello\n") == "Hello\n\n-- \nJane\nOrg")
        #expect(Signature.appended("Jane", to: "Hi\n-- \nAnn") == "Hi\n-- \nAnn")
        #expect(Signature.appended("Jane", to: "Hi\n--\nnot one") == "Hi\n--\nnot one\n\n-- \nJane",
                "'--' without its space is no separator")
        #expect(Signature.appended(nil, to: "Hi") == "Hi")
    }

    @Test func emailDataBodiesKeepTheirCRLF() {
        #expect(Signature.appended("Jane\nOrg", to: "Hi\r\n", lineBreak: "\r\n") == "Hi\r\n\r\n-- \r\nJane\r\nOrg")
        #expect(Signature.appended("Jane", to: "Hi\r\n-- \r\nAnn", lineBreak: "\r\n") == "Hi\r\n-- \r\nAnn")
    }
}
