extension Mailbox {
    /// `Name: mailbox` as a whole header field, folded and encoded (RFC 2047) as the
    /// builder writes it, with its CRLF: for adding a From field to a message built
    /// elsewhere (a draft saved without an account).
    public func headerField(_ name: String) throws(MIMEError) -> [UInt8] {
        try HeaderValue.field(name, HeaderValue.mailboxWords(self))
    }
}
