import MIMEMessage
import Testing
@testable import SMTPTransport

@Suite struct ReplyLogTests {
    @Test func eachRecipientGetsTheReplyThatAnsweredItsRCPT() {
        var log = ReplyLog()
        feed(&log, server: "220 mx ready\r\n")
        feed(&log, client: "EHLO host\r\n", server: "250-mx\r\n250-8BITMIME\r\n250 HELP\r\n")
        feed(&log, client: "MAIL FROM:<jane@example.org>\r\n", server: "250 OK\r\n")
        feed(&log, client: "RCPT TO:<a@example.com>\r\n", server: "250 2.1.5 Ok\r\n")
        feed(&log, client: "RCPT TO:<b@example.com>\r\n", server: "550 5.1.1 <b@example.com>: unknown\r\n")
        feed(&log, client: "DATA\r\n", server: "354 go on\r\n")
        feed(&log, server: "250 2.0.0 queued as X\r\n")
        feed(&log, client: "QUIT\r\n", server: "221 Bye\r\n")
        #expect(log.recipientReplies.map(\.address) == ["a@example.com", "b@example.com"])
        #expect(log.recipientReplies.map(\.code) == [250, 550])
        #expect(log.recipientReplies.last?.reply == "550 5.1.1 <b@example.com>: unknown")
        // The goodbye is not the answer to the message.
        #expect(log.lastReply == "250 2.0.0 queued as X")
    }

    @Test func replyLinesSplitAcrossCallbacksAreJoined() {
        var log = ReplyLog()
        feed(&log, client: "RCPT TO:<a@example.com>\r\n", server: "451 4.3.0 try ")
        feed(&log, server: "later\r\n")
        #expect(log.recipientReplies.first?.reply == "451 4.3.0 try later")
    }

    /// What a session that stalls names as left unanswered: the command's name, never the
    /// rest of its line (an AUTH answer is the password).
    @Test func theCommandAwaitingItsReplyIsKnownByItsNameAlone() {
        var log = ReplyLog()
        #expect(log.unanswered == nil)
        feed(&log, client: "AUTH PLAIN\r\n", server: "334 \r\n")
        #expect(log.unanswered == nil)
        feed(&log, client: "AGphbmUAc2VjcmV0\r\n")
        #expect(log.unanswered == "AUTH")
        feed(&log, server: "235 2.7.0 Authentication successful\r\n")
        feed(&log, client: "MAIL FROM:<jane@example.org> SIZE=1200\r\n")
        #expect(log.unanswered == "MAIL FROM")
        feed(&log, server: "250 2.1.0 Ok\r\n")
        feed(&log, client: "RCPT TO:<a@example.com>\r\n", server: "250-first line\r\n")
        // A reply that goes on is not the answer yet.
        #expect(log.unanswered == "RCPT TO")
        feed(&log, server: "250 2.1.5 Ok\r\n")
        feed(&log, client: "DATA\r\n")
        #expect(log.unanswered == "DATA")
        feed(&log, server: "354 go on\r\n")
        #expect(log.unanswered == nil)
    }

    @Test func authLinesAreNeverKept() {
        var log = ReplyLog()
        feed(&log, client: "AUTH PLAIN AGphbmUAc2VjcmV0\r\n", server: "235 2.7.0 Authentication successful\r\n")
        #expect(log.recipientReplies.isEmpty)
        #expect(!String(describing: log).contains("AGphbmUAc2VjcmV0"))
    }
}

@Suite struct ServerCheckTests {
    @Test func plainTextIsRefusedOffLoopbackUnlessAllowed() {
        // `*.localhost` may go to DNS and come back with an address that is not this machine.
        for host in ["smtp.example.org", "mail.localhost"] {
            #expect(throws: SMTPError.self) { try SMTPSubmission.checkServer(SMTPServer(host: host, security: .none)) }
        }
        #expect(throws: Never.self) {
            try SMTPSubmission.checkServer(SMTPServer(host: "smtp.example.org", security: .none, allowPlaintext: true))
        }
        for host in ["127.0.0.1", "localhost", "::1", "127.8.9.10"] {
            #expect(throws: Never.self) { try SMTPSubmission.checkServer(SMTPServer(host: host, port: 25, security: .none)) }
        }
    }

    @Test(arguments: ["evil.example/path", "user@host", "host\r\nRCPT", "", "a b"])
    func hostThatWouldChangeTheURLIsRefused(_ host: String) {
        #expect(throws: SMTPError.self) { try SMTPSubmission.checkServer(SMTPServer(host: host)) }
    }

    /// The check looks at bytes (a U-label's are refused), so a session and a live test
    /// turn an international host into its A-label first, and check and use that.
    @Test func internationalHostIsCheckedAsItsALabel() throws {
        #expect(IDNA.asciiDomain("smtp.bücher.example") == "smtp.xn--bcher-kva.example")
        let server = SMTPServer(host: "smtp.bücher.example")
        #expect(throws: SMTPError.self) { try SMTPSubmission.checkServer(server) }
        // A session checks and configures; it would connect only with a first message.
        let session = try SMTPSession(server)
        #expect(session.server.host == "smtp.xn--bcher-kva.example")
        #expect(throws: Never.self) { try SMTPSubmission.checkServer(session.server) }
    }

    @Test func defaultPortsFollowSecurity() {
        #expect(SMTPServer(host: "h", security: .tls).port == 465)
        #expect(SMTPServer(host: "h", security: .starttls).port == 587)
        #expect(SMTPServer(host: "::1", port: 25).address == "[::1]:25")
    }

    @Test func descriptionNeverShowsThePassword() {
        let server = SMTPServer(host: "h", user: "jane", password: "hunter2")
        #expect(!server.description.contains("hunter2"))
        #expect(!String(reflecting: server).contains("hunter2"))
    }
}
