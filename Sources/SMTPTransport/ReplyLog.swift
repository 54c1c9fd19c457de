/// The SMTP conversation as libcurl's debug callback shows it, reduced to what a report
/// needs: the server's replies and which RCPT each answered. Client lines other than
/// `MAIL FROM`, `RCPT TO` and `DATA` are never kept: they include AUTH, whose argument
/// carries the password.
struct ReplyLog {
    private enum Command { case rcpt(String), quit, ehlo, starttls, auth, other }
    private var pending: Command = .other
    private var partial: [UInt8] = []
    private(set) var lastReply = ""
    private(set) var recipientReplies: [(address: String, code: Int, reply: String)] = []
    /// The server's first line (`220 mx.example.org ESMTP`).
    private(set) var greeting: String?
    /// The extensions of the last EHLO reply (after STARTTLS, those offered over TLS),
    /// without the first line, which names the server.
    private(set) var capabilities: [String] = []
    /// An EHLO was answered in this dialogue: `capabilities` are the connection's (a
    /// transfer on a connection kept from before hears none).
    private(set) var heardEHLO = false
    private var ehloLines = 0
    /// The server answered STARTTLS with 220: the rest of the session is encrypted.
    private(set) var startedTLS = false
    /// The reply code to AUTH (the last step of it), `nil` when none was sent.
    private(set) var authCode: Int?
    /// The command sent whose reply has not come (`MAIL FROM`, `RCPT TO`, `DATA`, ...), by
    /// its name alone; `nil` while the server owes nothing.
    private(set) var unanswered: String?

    /// The recipients the server refused (4xx or 5xx to their RCPT), with its reply.
    var refused: [RefusedRecipient] {
        recipientReplies.filter { $0.code >= 400 }.map { RefusedRecipient(address: $0.address, reply: $0.reply) }
    }

    mutating func clientLine(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Only the command verb is looked at; never copy more of an unknown line.
        var isAuthAnswer = false
        if case .auth = pending { isAuthAnswer = true }
        unanswered = Self.commandName(bytes) ?? (isAuthAnswer ? "AUTH" : "a command")
        let prefix = "RCPT TO:<".utf8
        if bytes.count > prefix.count, zip(bytes, prefix).allSatisfy({ ($0 | 0x20) == ($1 | 0x20) }) {
            let rest = bytes[prefix.count...]
            let end = rest.firstIndex(of: UInt8(ascii: ">")) ?? rest.endIndex
            pending = .rcpt(String(decoding: rest[..<end], as: UTF8.self))
        } else if Self.verb(bytes, is: "QUIT") {
            pending = .quit
        } else if Self.verb(bytes, is: "EHLO") {
            pending = .ehlo
            capabilities = []
            ehloLines = 0
        } else if Self.verb(bytes, is: "STARTTLS") {
            pending = .starttls
        } else if Self.verb(bytes, is: "AUTH") {
            // Only the verb: the rest of the line may carry the password.
            pending = .auth
        } else if case .auth = pending, authCode == 334 {
            // An answer to the server's AUTH challenge (334): base64 user or password,
            // never looked at.
        } else {
            pending = .other
        }
    }

    mutating func serverData(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Bytes, not Characters: in a String, "\r\n" is one Character and "\n" not found.
        partial += bytes
        while let newline = partial.firstIndex(of: 0x0A) {
            var line = Array(partial[..<newline])
            partial.removeSubrange(...newline)
            if line.last == 0x0D { line.removeLast() }
            serverLine(String(decoding: line, as: UTF8.self))
        }
    }

    /// The name of a command libcurl sends, from the first bytes of its line only.
    private static func commandName(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        for name in ["MAIL FROM", "RCPT TO", "DATA", "EHLO", "HELO", "STARTTLS", "AUTH", "NOOP", "RSET", "QUIT", "VRFY", "EXPN", "HELP"] {
            let word = name.utf8
            guard bytes.count >= word.count, zip(bytes, word).allSatisfy({ ($0 & 0xDF) == ($1 & 0xDF) }) else { continue }
            if bytes.count == word.count || [0x20, 0x3A, 0x0D, 0x0A].contains(bytes[word.count]) { return name }
        }
        return nil
    }

    private static func verb(_ bytes: UnsafeBufferPointer<UInt8>, is name: String) -> Bool {
        let word = name.utf8
        guard bytes.count >= word.count, zip(bytes, word).allSatisfy({ ($0 & 0xDF) == $1 }) else { return false }
        return bytes.count == word.count || [0x20, 0x0D, 0x0A].contains(bytes[word.count])
    }

    /// A final reply line is `NNN text` (RFC 5321 §4.2); `NNN-text` continues.
    private mutating func serverLine(_ line: String) {
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) else { return }
        let continues = bytes.count > 3 && bytes[3] == UInt8(ascii: "-")
        switch pending {
        case .ehlo where code == 250:
            // RFC 5321 §4.1.1.1: the first line names the server, each other one an extension.
            if ehloLines > 0 { capabilities.append(String(decoding: bytes.dropFirst(4), as: UTF8.self)) }
            ehloLines += 1
            if !continues { heardEHLO = true }
        case .starttls where !continues:
            startedTLS = code == 220
        case .auth where !continues:
            authCode = code
        case .other where greeting == nil && code == 220 && !continues:
            greeting = line
        default:
            break
        }
        if continues { return }
        unanswered = nil
        // The goodbye says nothing about the message; the reply before it does.
        if case .quit = pending { return }
        lastReply = line
        if case .rcpt(let address) = pending {
            recipientReplies.append((address, code, line))
            pending = .other
        }
    }
}
