import Testing
@testable import SMTPTransport

/// What storing a draft reads of an IMAP server's answers and writes on the wire, on values.
@Suite struct IMAPSyntaxTests {
    func listed(_ line: String) -> ListedMailbox? {
        ListedMailbox(Array(line.utf8))
    }

    /// RFC 3501 §7.2.2: flags, delimiter and name, quoted, atom or literal.
    @Test func aListLineGivesItsFlagsDelimiterAndName() throws {
        let drafts = try #require(listed(#"* LIST (\HasNoChildren \Drafts) "/" "[Gmail]/Drafts""# + "\r\n"))
        #expect(drafts.flags == ["\\hasnochildren", "\\drafts"])
        #expect(drafts.delimiter == "/")
        #expect(drafts.name == "[Gmail]/Drafts")
        #expect(drafts.lastLevel == "Drafts")
        let bracketed = try #require(listed("* LIST (\\Drafts) \"/\" [Gmail]/Drafts\r\n"))
        #expect(bracketed.name == "[Gmail]/Drafts" && bracketed.flags == ["\\drafts"])
        let atom = try #require(listed("* LIST () \".\" INBOX.Drafts\r\n"))
        #expect(atom.name == "INBOX.Drafts" && atom.lastLevel == "Drafts")
        let literal = try #require(listed("* LIST () \"/\" {10}\r\nSay \"hi\"/x\r\n"))
        #expect(literal.name == "Say \"hi\"/x")
        let escaped = try #require(listed(#"* LIST () NIL "a\"b\\c""# + "\r\n"))
        #expect(escaped.name == #"a"b\c"# && escaped.delimiter == nil)
    }

    /// A mailbox that cannot hold messages is no Drafts, whatever its name.
    @Test func aMailboxThatCannotBeSelectedIsLeftOut() {
        #expect(listed("* LIST (\\Noselect) \"/\" Drafts\r\n") == nil)
        #expect(listed("* LIST (\\NonExistent \\Drafts) \"/\" Drafts\r\n") == nil)
        #expect(listed("* STATUS Drafts (MESSAGES 1)\r\n") == nil)
    }

    /// Rule 4: what goes on the wire is quoted, and a name no quoted string can carry never goes.
    @Test func aMailboxNameIsQuotedOrRefused() {
        #expect(IMAPSyntax.quoted("Drafts") == "\"Drafts\"")
        #expect(IMAPSyntax.quoted(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(IMAPSyntax.quoted("Drafts\r\nM9 DELETE INBOX") == nil)
        #expect(IMAPSyntax.quoted("a\0b") == nil)
        #expect(IMAPSyntax.quoted("Entwürfe") == nil)
    }

    /// RFC 3501 §5.1.3: modified UTF-7, as people read it.
    @Test func aModifiedUTF7NameReadsAsPeopleWriteIt() {
        #expect(IMAPSyntax.readableMailbox("Entw&APw-rfe") == "Entwürfe")
        #expect(IMAPSyntax.readableMailbox("Tom &- Jerry") == "Tom & Jerry")
        #expect(IMAPSyntax.readableMailbox("&U,BTFw-") == "台北")
        #expect(IMAPSyntax.readableMailbox("Drafts") == "Drafts")
        #expect(IMAPSyntax.readableMailbox("broken&AB") == "broken&AB")
    }
}
