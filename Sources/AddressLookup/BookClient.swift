internal import CEBook

/// One open address book: one owner of one `EBookClient`, wrapping
/// `e_book_client_connect_sync` (transfer full, released with `g_object_unref` in
/// `deinit`, which closes the book for this process). It holds its `Source`, so that the
/// book's name is there for as long as the book.
final class BookClient {
    let source: Source
    private let pointer: UnsafeMutablePointer<EBookClient>

    /// Opens `source`'s book through `org.gnome.evolution.dataserver.AddressBook10` (started
    /// when activatable), without waiting for a remote book to connect to its server: it
    /// answers from its cache, as Evolution's completion has it. `nil`, with libebook's
    /// message in `error`, when the book cannot be opened or `cancellable` is cancelled.
    init?(source: Source, cancellable: UnsafeMutablePointer<GCancellable>?, error message: inout String?) {
        var error: UnsafeMutablePointer<GError>?
        guard let client = e_book_client_connect_sync(source.pointer, mr_book_no_wait, cancellable, &error) else {
            message = takeMessage(error)
            return nil
        }
        takeMessage(error)
        self.source = source
        pointer = mr_book_client(client)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// A contact as a completion reads it: its full name and every e-mail address.
    struct Card {
        var name: String
        var addresses: [String]
    }

    /// The contacts `query` (e-book's query language, `BookQuery`) selects, contact lists
    /// left out (a list is many recipients under one name); empty when the book cannot answer.
    /// Wraps `e_book_client_get_contacts_sync` (a `GSList` of `EContact`, transfer full:
    /// freed with `g_slist_free_full` and `g_object_unref`).
    func cards(matching query: String) -> [Card] {
        var list: UnsafeMutablePointer<GSList>?
        var error: UnsafeMutablePointer<GError>?
        let found = e_book_client_get_contacts_sync(pointer, query, &list, nil, &error)
        takeMessage(error)
        defer { g_slist_free_full(list, g_object_unref) }
        guard found != 0 else { return [] }
        var cards: [Card] = []
        var link = list
        while let element = link {
            if let data = element.pointee.data, let card = Self.card(mr_contact(data)) { cards.append(card) }
            link = element.pointee.next
        }
        return cards
    }

    /// Wraps `e_contact_get_const` (`E_CONTACT_FULL_NAME`, owned by the contact) and
    /// `e_contact_get` (`E_CONTACT_EMAIL`: a `GList` of strings, transfer full, freed with
    /// `g_list_free_full` and `g_free`).
    private static func card(_ contact: UnsafeMutablePointer<EContact>) -> Card? {
        guard mr_contact_is_list(contact) == 0 else { return nil }
        let name = mr_contact_full_name(contact).map { String(cString: $0) } ?? ""
        let emails = mr_contact_emails(contact)
        defer { g_list_free_full(emails, g_free) }
        var addresses: [String] = []
        var link = emails
        while let element = link {
            if let data = element.pointee.data {
                let address = String(cString: data.assumingMemoryBound(to: CChar.self))
                if !address.isEmpty { addresses.append(address) }
            }
            link = element.pointee.next
        }
        return Card(name: name, addresses: addresses)
    }
}
