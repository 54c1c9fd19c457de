public import MailtoCore

extension EmailData {
    /// Copy Address's text: the link's recipients as a person reads them and another
    /// program's address field takes them back. To, then Cc, then Bcc, each address once (a
    /// person copying a link's addresses means everyone it writes to); percent-decoding done
    /// (the parser's); an international domain in Unicode (`joe@bücher.example`, not its
    /// `xn--` form); the name given kept (`Joe <joe@bücher.example>`, quoted where a name
    /// needs it to read back the same); separated by `, `. Empty when the link names nobody.
    public var copiedAddresses: String {
        allRecipients.map { address in
            let readable = Mailbox.unicodeAddress(address)
            return names[address].map { DisplayName.mailbox($0, readable) } ?? readable
        }.joined(separator: ", ")
    }
}
