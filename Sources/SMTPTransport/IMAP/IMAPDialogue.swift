internal import CCurl
import MailtoCore

/// mailto-route's own few IMAP commands (RFC 3501) on a connection libcurl opened, secured
/// and logged in (`CurlEasy.connectOnly`): one command at a time, each with its own tag,
/// each answer awaited within the server's stall limit. libcurl's tags are `A001`...; ours
/// are `M1`, `M2`... so that none is taken twice.
final class IMAPDialogue {
    /// What a command came to: the untagged lines before its end, and its tagged status.
    struct Answer {
        var untagged: [[UInt8]]
        /// `OK`, `NO` or `BAD`.
        var status: String
        /// The status line's text after the status, as the server wrote it.
        var text: String
    }

    private let easy: CurlEasy
    private let server: SMTPServer
    private var received: [UInt8] = []
    private var nextTag = 1

    init(_ easy: CurlEasy, server: SMTPServer) {
        self.easy = easy
        self.server = server
    }

    private var deadline: Int { MonotonicClock.milliseconds + server.stallTimeout * 1000 }

    /// Sends `TAG command` and reads until its tagged answer. `literal`, when given, follows
    /// the command line once the server asked for it (`+`); a server that answers the
    /// command instead has refused it, and the literal is not sent.
    func command(_ command: String, literal: [UInt8]? = nil) throws(SMTPError) -> Answer {
        let tag = "M\(nextTag)"
        nextTag += 1
        try send(Array("\(tag) \(command)\r\n".utf8))
        var untagged: [[UInt8]] = []
        var literal = literal
        while true {
            let line = try readLine()
            if line.starts(with: "+".utf8), let bytes = literal {
                literal = nil
                try send(bytes + [0x0D, 0x0A])
                continue
            }
            if line.starts(with: "\(tag) ".utf8) {
                let words = Self.text(line.dropFirst(tag.utf8.count + 1)).split(separator: " ", maxSplits: 1)
                return Answer(untagged: untagged, status: words.first.map { String($0).asciiUppercased() } ?? "",
                              text: words.count > 1 ? String(words[1]) : "")
            }
            if line.starts(with: "* BYE".utf8) {
                throw SMTPError(.transient, tr("%@ closed the connection: %@", server.address,
                                               Self.text(line.dropFirst(6)).visible))
            }
            untagged.append(line)
        }
    }

    /// A line's text, without its line end.
    static func text(_ line: ArraySlice<UInt8>) -> String {
        String(decoding: line.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
    }

    private func send(_ bytes: [UInt8]) throws(SMTPError) {
        let code = easy.send(bytes, deadline: deadline)
        guard code == CURLE_OK else { throw failure(code) }
    }

    /// One response line with the literals it announces (`{n}` CRLF, n bytes) inline.
    private func readLine() throws(SMTPError) -> [UInt8] {
        var searchFrom = 0
        while true {
            if let lineFeed = received[searchFrom...].firstIndex(of: 0x0A) {
                // A line that ends in `{n}` CRLF goes on after its n bytes.
                let line = Array(received[..<(lineFeed + 1)])
                if let open = line.lastIndex(of: UInt8(ascii: "{")), let literal = IMAPSyntax.literalSize(line, at: open),
                   literal.start == line.count {
                    if received.count >= lineFeed + 1 + literal.count {
                        searchFrom = lineFeed + 1 + literal.count
                        continue
                    }
                } else {
                    received.removeFirst(lineFeed + 1)
                    return line
                }
            }
            let (bytes, code) = easy.receive(deadline: deadline)
            guard code == CURLE_OK else { throw failure(code) }
            guard !bytes.isEmpty else {
                throw SMTPError(.transient, tr("%@ closed the connection", server.address), cause: .connect)
            }
            received += bytes
        }
    }

    private func failure(_ code: CURLcode) -> SMTPError {
        SMTPSubmission.classify(code, responseCode: 0, reply: "", refused: [], detail: easy.errorText(code), server: server)
    }
}
