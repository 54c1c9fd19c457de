/// The SMTP conversation as libcurl's debug callback shows it, reduced to what a report
/// needs: the server's replies and which RCPT each answered. Client lines other than
/// `MAIL FROM`, `RCPT TO` and `DATA` are never kept: they include AUTH, whose argument
/// carries the password.
struct ReplyLog {
    private enum Command { case rcpt(String), quit, other }
    private var pending: Command = .other
    private var partial: [UInt8] = []
    private(set) var lastReply = ""
    private(set) var recipientReplies: [(address: String, code: Int, reply: String)] = []

    mutating func clientLine(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Only the command verb is looked at; never copy more of an unknown line.
        let prefix = "RCPT TO:<".utf8
        if bytes.count > prefix.count, zip(bytes, prefix).allSatisfy({ ($0 | 0x20) == ($1 | 0x20) }) {
            let rest = bytes[prefix.count...]
            let end = rest.firstIndex(of: UInt8(ascii: ">")) ?? rest.endIndex
            pending = .rcpt(String(decoding: rest[..<end], as: UTF8.self))
        } else if bytes.count >= 4, zip(bytes, "QUIT".utf8).allSatisfy({ ($0 & 0xDF) == $1 }) {
            pending = .quit
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

    /// A final reply line is `NNN text` (RFC 5321 §4.2); `NNN-text` continues.
    private mutating func serverLine(_ line: String) {
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) else { return }
        if bytes.count > 3, bytes[3] == UInt8(ascii: "-") { return }
        // The goodbye says nothing about the message; the reply before it does.
        if case .quit = pending { return }
        lastReply = line
        if case .rcpt(let address) = pending {
            recipientReplies.append((address, code, line))
            pending = .other
        }
    }
}
