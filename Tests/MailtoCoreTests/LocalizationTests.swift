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
        // Read as bytes, whatever surrounds the marks; what is no mark is left as written.
        #expect(fill("Grüße an %@ – schön, %2$@!", with: ["Jürgen", "Groß"]) == "Grüße an Jürgen – schön, Groß!")
        #expect(fill("ends with %", with: ["x"]) == "ends with %")
        #expect(fill("%3$@|%1$x|%$@|%12", with: ["a"]) == "|%1$x|%$@|%12")
        #expect(fill("%@%@%%%@", with: ["1", "2", "3"]) == "12%3")
        #expect(tr("%@ messages wait", "3") == "3 messages wait")
        #expect(tr("%@ of %@ sent", 2, 5) == "2 of 5 sent")
        // A percent sign is written %% with or without values.
        #expect(tr("write it as %%2F") == "write it as %2F")
    }

    /// Without a catalog, the number picks English's form: one is singular, any other
    /// number (zero too) plural; the number is a value only where the message says it.
    @Test func theNumberPicksTheFormWithoutACatalog() {
        #expect(trn("%@ message waits", "%@ messages wait", 1, 1) == "1 message waits")
        #expect(trn("%@ message waits", "%@ messages wait", 0, 0) == "0 messages wait")
        #expect(trn("%@ message waits", "%@ messages wait", 2, 2) == "2 messages wait")
        #expect(trn("it waits", "they wait", 7) == "they wait")
        #expect(trn("it waits", "they wait", -1) == "they wait")
    }

    /// Marked for the extraction only: the text comes back as written, to be translated
    /// where it is shown.
    @Test func aMarkedMessageIsStoredAsWritten() {
        #expect(trNoop("List, send or drop saved drafts.") == "List, send or drop saved drafts.")
    }
}
