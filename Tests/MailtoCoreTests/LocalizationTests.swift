import Testing
@testable import MailtoCore

/// `tr` and its placeholders, with no catalog bound for the domain (the tests' locale is C):
/// every message comes back as written.
struct LocalizationTests {
    /// With no translation, dgettext answers with the pointer it was given; the message must
    /// still come back whole after the memory a call's temporary C string used is reused
    /// (it crashed the sheet's save question once: the copy was made after that string was
    /// gone).
    @Test func anUntranslatedMessageComesBackAsWritten() {
        let messages = (0..<200).map { "Save this message as a draft? (\($0)) " + String(repeating: "é", count: $0 % 40) }
        for message in messages {
            let churn = (0..<8).map { String(repeating: "x", count: 32 + $0) }
            #expect(tr(message) == message)
            #expect(churn.count == 8)
        }
    }

    @Test func valuesGoWhereTheirPlaceholdersSay() {
        #expect(fill("Sent to %@ from %@", with: ["Ann", "Jane"]) == "Sent to Ann from Jane")
        #expect(fill("Von %2$@ an %1$@", with: ["Ann", "Jane"]) == "Von Jane an Ann")
        #expect(fill("100%% of %@", with: ["it"]) == "100% of it")
        #expect(fill("%@ and %@", with: ["one"]) == "one and ")
        #expect(fill("a lone % sign", with: []) == "a lone % sign")
        #expect(tr("%@ messages wait", "3") == "3 messages wait")
    }
}
