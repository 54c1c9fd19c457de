internal import CCurl
import MIMEMessage
import MailtoCore

/// Where a draft was stored in the account's own mailbox.
public struct StoredDraft: Sendable, Equatable {
    /// The mailbox, its name as people read it (`Drafts`, `[Gmail]/Drafts`).
    public var mailbox: String
    /// The IMAP server, `host:port`.
    public var server: String
    /// Whom the server logged in.
    public var user: String

    public init(mailbox: String, server: String, user: String) {
        self.mailbox = mailbox
        self.server = server
        self.user = user
    }
}

/// Stores a message in the Drafts mailbox of an IMAP account, flagged `\Draft`, for a
/// webmail that shows it there (issue 34: a webmail handoff that carries every attachment).
///
/// libcurl's own IMAP upload sends `APPEND mailbox (\Seen)`, a flag it chooses: the draft
/// would not be one. So libcurl connects, secures (implicit TLS, or STARTTLS never falling
/// back to plain text) and logs in (`CURLOPT_CONNECT_ONLY`: its greeting, CAPABILITY,
/// STARTTLS and SASL PLAIN, LOGIN or, with a token, XOAUTH2), and the rest is a dialogue
/// of our own (`IMAPDialogue`): LIST to find the Drafts mailbox, APPEND, LOGOUT. Bounded:
/// the connection and login by `connectTimeout` and `stallTimeout`, each answer after
/// by `stallTimeout`; nothing is tried twice.
public enum IMAPDraftStore {
    /// The names providers give a drafts folder, for a server that marks none `\Drafts`
    /// (RFC 6154): compared with a mailbox name's last level, ignoring case
    /// (`Drafts`, `INBOX.Drafts`, `[Gmail]/Drafts`).
    static let draftsNames: Set<String> = ["drafts", "draft"]

    /// The token goes with XOAUTH2 alone: the mechanism Google and Microsoft document for
    /// IMAP (libcurl would prefer OAUTHBEARER where both are offered).
    static let bearerMechanism = "AUTH=XOAUTH2"

    /// Stores `message` (RFC 5322 bytes, CRLF) in the Drafts mailbox of `user` on `server`
    /// (its `user` and `password` or `bearerToken`), with the `\Draft` flag. Throws an
    /// `SMTPError`: its `refusedLogin` when the server refused the credential.
    public static func store(_ message: [UInt8], on server: SMTPServer) throws(SMTPError) -> StoredDraft {
        var server = server
        server.host = IDNA.asciiDomain(server.host)
        try SMTPSubmission.checkServer(server)
        guard server.user != nil else { throw SMTPError(.configuration, tr("no IMAP user name for %@", server.address)) }
        let easy = try CurlEasy(try CurlLibrary.load())
        try SMTPSubmission.configureSession(easy, server: server, speaking: .imap)
        if server.bearerToken != nil { try easy.set(CURLOPT_LOGIN_OPTIONS, bearerMechanism) }
        try easy.set(CURLOPT_CONNECT_ONLY, 1)
        try easy.set(CURLOPT_TIMEOUT, server.connectTimeout + server.stallTimeout)
        let code = easy.connectOnly()
        guard code == CURLE_OK else {
            if code == CURLE_LOGIN_DENIED { throw SMTPSubmission.refusedCredential(server: server, reply: nil) }
            throw SMTPSubmission.classify(code, responseCode: 0, reply: "", refused: [], detail: easy.errorText(code), server: server)
        }
        let dialogue = IMAPDialogue(easy, server: server)
        let mailbox = try draftsMailbox(dialogue, server: server)
        guard let quoted = IMAPSyntax.quoted(mailbox) else {
            throw SMTPError(.permanent, tr("the Drafts mailbox of %@ has a name mailto-route cannot write", server.address))
        }
        let answer = try dialogue.command("APPEND \(quoted) (\\Draft) {\(message.count)}", literal: message)
        guard answer.status == "OK" else {
            throw SMTPError(.permanent, tr("%@ did not store the draft in %@: %@", server.address, IMAPSyntax.readableMailbox(mailbox),
                                           answer.text.visible))
        }
        // The draft is stored: a LOGOUT that goes wrong changes nothing.
        _ = try? dialogue.command("LOGOUT")
        return StoredDraft(mailbox: IMAPSyntax.readableMailbox(mailbox), server: server.address, user: server.user ?? "")
    }

    /// The mailbox the server marks `\Drafts` (RFC 6154 §2, asked with LIST-EXTENDED's
    /// `RETURN (SPECIAL-USE)`, or seen in a plain LIST's flags), else one named as providers
    /// name it; its name as the server spells it.
    static func draftsMailbox(_ dialogue: IMAPDialogue, server: SMTPServer) throws(SMTPError) -> String {
        var answer = try dialogue.command(#"LIST "" "*" RETURN (SPECIAL-USE)"#)
        if answer.status != "OK" { answer = try dialogue.command(#"LIST "" "*""#) }
        guard answer.status == "OK" else {
            throw SMTPError(.permanent, tr("%@ did not list its mailboxes: %@", server.address, answer.text.visible))
        }
        let mailboxes = answer.untagged.compactMap(ListedMailbox.init)
        if let marked = mailboxes.first(where: { $0.flags.contains("\\drafts") }) { return marked.name }
        if let named = mailboxes.first(where: { draftsNames.contains($0.lastLevel.lowercased()) }) { return named.name }
        throw SMTPError(.permanent, tr("%@ has no Drafts mailbox", server.address))
    }
}

/// One `* LIST (flags) "delimiter" name` line (RFC 3501 §7.2.2) that can be selected.
struct ListedMailbox {
    /// The flags, lowercased (`\drafts`, `\hasnochildren`).
    var flags: Set<String>
    var delimiter: String?
    var name: String

    init?(_ line: [UInt8]) {
        let words = IMAPSyntax.words(line)
        guard words.count >= 5, words[0] == .atom("*"), words[1].text?.asciiUppercased() == "LIST",
              case .list(let flagWords) = words[2], let name = words[4].text
        else { return nil }
        flags = Set(flagWords.compactMap { $0.text?.lowercased() })
        guard !flags.contains("\\noselect"), !flags.contains("\\nonexistent") else { return nil }
        delimiter = words[3] == .atom("NIL") ? nil : words[3].text
        self.name = name
    }

    /// The name's last level: `Drafts` of `[Gmail]/Drafts`.
    var lastLevel: String {
        guard let delimiter = delimiter?.first else { return name }
        return name.split(separator: delimiter, omittingEmptySubsequences: false).last.map(String.init) ?? name
    }
}
