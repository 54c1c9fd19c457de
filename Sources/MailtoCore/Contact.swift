/// One address of a contact in the user's address books, as the To, Cc and Bcc completion
/// offers it: a contact with two addresses is two of these, with the same name. What
/// AddressLookup reads from the books and mailto-route-books sends the sheet.
public struct Contact: Hashable, Sendable {
    /// The contact's full name as its book has it (vCard `FN`); empty when it has none.
    public var name: String
    public var address: String

    public init(name: String, address: String) {
        self.name = name
        self.address = address
    }

    /// What a field takes for this contact: `Asa Berg <asa@example.org>` (the name quoted
    /// when it needs to be, by MailtoCore's `DisplayName`), or the bare address when the
    /// contact has no name.
    public var mailbox: String {
        name.isEmpty ? address : DisplayName.mailbox(name, address)
    }
}
