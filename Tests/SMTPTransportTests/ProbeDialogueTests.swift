import Testing
@testable import SMTPTransport

/// What a live test (`SMTPSubmission.probe`) reads from the dialogue: the greeting, the
/// EHLO extensions, STARTTLS and the answer to AUTH, never the AUTH arguments.
@Suite struct ProbeDialogueTests {
    @Test func theLastEHLOAfterSTARTTLSGivesTheCapabilities() {
        var log = ReplyLog()
        feed(&log, server: "220 mx.test ESMTP\r\n")
        feed(&log, client: "EHLO host\r\n", server: "250-mx.test\r\n250-SIZE 1000\r\n250-STARTTLS\r\n250 HELP\r\n")
        feed(&log, client: "STARTTLS\r\n", server: "220 Ready to start TLS\r\n")
        feed(&log, client: "EHLO host\r\n", server: "250-mx.test\r\n250-SIZE 1000\r\n250-AUTH LOGIN PLAIN\r\n250 HELP\r\n")
        feed(&log, client: "AUTH PLAIN AGphbmUAc2VjcmV0\r\n", server: "235 2.7.0 Authentication successful\r\n")
        feed(&log, client: "NOOP\r\n", server: "250 OK\r\n")
        #expect(log.greeting == "220 mx.test ESMTP")
        #expect(log.capabilities == ["SIZE 1000", "AUTH LOGIN PLAIN", "HELP"])
        #expect(log.startedTLS)
        #expect(log.authCode == 235)
        #expect(!String(describing: log).contains("AGphbmUAc2VjcmV0"))
    }

    @Test func aRefusedLoginIsItsLastAnswerAndTheChallengeRepliesAreNotKept() {
        var log = ReplyLog()
        feed(&log, client: "AUTH LOGIN\r\n", server: "334 VXNlcm5hbWU6\r\n")
        feed(&log, client: "amFuZQ==\r\n", server: "334 UGFzc3dvcmQ6\r\n")
        feed(&log, client: "c2VjcmV0\r\n", server: "535 5.7.8 Authentication credentials invalid\r\n")
        #expect(log.authCode == 535)
        #expect(!String(describing: log).contains("c2VjcmV0"))
    }
}
