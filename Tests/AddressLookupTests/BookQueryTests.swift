import CEBook
import MailtoCore
import Testing
@testable import AddressLookup

/// The queries and the ranking, in-process: no bus, no EDS. The judge of a query is
/// libebook's own parser (`e_book_query_from_string`), which EDS's backends use too.
@Suite struct BookQueryTests {
    @Test func aNameIsAskedOfTheFullGivenAndFamilyNameAndTheNickname() {
        // EBookQuery's own spacing.
        #expect(BookQuery.names(beginningWith: "As") == """
            (or (beginswith "full_name"  "As") (beginswith "given_name"  "As") \
            (beginswith "family_name"  "As") (beginswith "nickname"  "As") )
            """)
        // The addresses of the others only: each card is sent once.
        #expect(BookQuery.otherAddresses(beginningWith: "asa@") == """
            (and (or (beginswith "email"  "asa@") ) (not (or (beginswith "full_name"  "asa@") \
            (beginswith "given_name"  "asa@") (beginswith "family_name"  "asa@") (beginswith "nickname"  "asa@") )) )
            """)
    }

    @Test func aQuoteOrBackslashTypedStaysText() throws {
        #expect(BookQuery.names(beginningWith: #"a"b\c"#)?.hasPrefix(#"(or (beginswith "full_name"  "a\"b\\c") "#) == true)
        for typed in [#"Bo "Q"#, #"O'Neil\"#, #"a\") (exists "email"#, "((", "\u{7F}ünï"] {
            let query = try #require(BookQuery.otherAddresses(beginningWith: typed))
            // Parsed back to the same query, written again the same: what was typed is one
            // string argument of each of the five tests.
            let parsed = try #require(e_book_query_from_string(query), "\(query)")
            defer { e_book_query_unref(parsed) }
            let again = try #require(e_book_query_to_string(parsed))
            defer { g_free(again) }
            #expect(String(cString: again) == query)
            #expect(query.components(separatedBy: "beginswith").count == 6, "\(query)")
        }
    }

    @Test func oneEntryPerAddressSortedByNameThenAddress() {
        let found = [
            Contact(name: "bo Berg", address: "bo@example.org"),
            Contact(name: "Asa Berg", address: "asa@work.example"),
            Contact(name: "", address: "anon@example.org"),
            Contact(name: "Asa Berg", address: "asa@example.org"),
            Contact(name: "Asa B.", address: "ASA@example.org"),
        ]
        #expect(AddressBooks.ranked(found, limit: 10) == [
            Contact(name: "", address: "anon@example.org"),
            Contact(name: "Asa Berg", address: "asa@example.org"),
            Contact(name: "Asa Berg", address: "asa@work.example"),
            Contact(name: "bo Berg", address: "bo@example.org"),
        ])
        #expect(AddressBooks.ranked(found, limit: 2).count == 2)
        #expect(AddressBooks.ranked(found, limit: 0).isEmpty)
    }

    @Test func whatWasTypedIsTrimmedAndTheMailboxQuotedWhenNeeded() {
        #expect(AddressBooks.trimmed("  asa b \t") == "asa b")
        #expect(AddressBooks.trimmed(" \n ").isEmpty)
        #expect(Contact(name: "Asa Berg", address: "asa@example.org").mailbox == "Asa Berg <asa@example.org>")
        #expect(Contact(name: "Berg, Asa", address: "asa@example.org").mailbox == #""Berg, Asa" <asa@example.org>"#)
        #expect(Contact(name: "", address: "asa@example.org").mailbox == "asa@example.org")
    }
}
