internal import CEBook

/// The queries an address completion asks a book, in e-book's query language (the
/// S-expressions of `e_book_client_get_contacts_sync`), built by libebook's own `EBookQuery`
/// so that the library quotes what was typed: a `"` or `\` in it is text, never the end of
/// the query.
///
/// "Begins with" is case-insensitive in every backend. For a name the local books (and the
/// CardDAV and Google books, which keep theirs in the same cache) match the start of any
/// word of the full name, so `Berg` and `Asa B` both find Asa Berg, as they do in Evolution;
/// the given and family name are asked too, for backends that match the full name only
/// from its start (LDAP).
enum BookQuery {
    /// Contacts whose full name, given name, family name or nickname begins with `prefix`.
    static func names(beginningWith prefix: String) -> String? {
        text(of: nameTests(prefix))
    }

    /// Contacts with an e-mail address that begins with `prefix`, and that `names` does not
    /// find: EDS sends each contact once, and a short prefix can match a thousand of them by
    /// both (every card costs time to send and to read).
    static func otherAddresses(beginningWith prefix: String) -> String? {
        guard let names = nameTests(prefix), let addresses = either([test(E_CONTACT_EMAIL, prefix)]) else { return nil }
        guard let notNames = e_book_query_not(names, 1) else {
            e_book_query_unref(addresses)
            return nil
        }
        var both: [OpaquePointer?] = [addresses, notNames]
        return text(of: e_book_query_and(2, &both, 1))
    }

    private static func nameTests(_ prefix: String) -> OpaquePointer? {
        either([E_CONTACT_FULL_NAME, E_CONTACT_GIVEN_NAME, E_CONTACT_FAMILY_NAME, E_CONTACT_NICKNAME].map { test($0, prefix) })
    }

    /// `(beginswith "FIELD" "PREFIX")`: wraps `e_book_query_field_test` (transfer full).
    private static func test(_ field: EContactField, _ prefix: String) -> OpaquePointer? {
        prefix.withCString { e_book_query_field_test(field, E_BOOK_QUERY_BEGINS_WITH, $0) }
    }

    /// `(or TEST...)`: wraps `e_book_query_or`, which takes the tests (`unref` true); `nil`,
    /// with the tests released, when one of them could not be made.
    private static func either(_ tests: [OpaquePointer?]) -> OpaquePointer? {
        guard !tests.contains(where: { $0 == nil }) else {
            for case let test? in tests { e_book_query_unref(test) }
            return nil
        }
        var tests = tests
        return e_book_query_or(Int32(tests.count), &tests, 1)
    }

    /// The query as text, the query released: wraps `e_book_query_to_string` (freed with
    /// `g_free`) and `e_book_query_unref`.
    private static func text(of query: OpaquePointer?) -> String? {
        guard let query else { return nil }
        defer { e_book_query_unref(query) }
        guard let text = e_book_query_to_string(query) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }
}
