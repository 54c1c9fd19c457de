import Testing
@testable import SMTPTransport

/// What a live test (`SMTPSubmission.probe`) reads from the dialogue: the greeting, the
/// EHLO extensions, STARTTLS and the answer to AUTH, never the AUTH arguments.
@Suite struct ProbeDialogueTests {
    private func say(_ log: inout ReplyLog, _ client: String?, _ server: String) {
        if let client { Array(client.utf8).withUnsafeBufferPointer { log.clientLine($0) } }
        Array(server.utf8).withUnsafeBufferPointer { log.serverData($0) }
    }

    @Test func theLastEHLOAfterSTARTTLSGivesTheCapabilities() {
        var log = ReplyLog()
        say(&log, nil, "220 mx.test ESMTP\r\n")
        say(&log, "EHLO host\r\n", "250-mx.test\r\n250-SIZE 1000\r\n250-STARTTLS\r\n250 HELP\r\n")
        say(&log, "STARTTLS\r\n", "220 Ready to start TLS\r\n")
        say(&log, "EHLO host\r\n", "250-mx.test\r\n250-SIZE 1000\r\n250-AUTH LOGIN PLAIN\r\n250 HELP\r\n")
        say(&log, "AUTH PLAIN AGphbmUAc2VjcmV0\r\n", "235 2.7.0 Authentication successful\r\n")
        say(&log, "NOOP\r\n", "250 OK\r\n")
        #expect(log.greeting == "220 mx.test ESMTP")
        #expect(log.capabilities == ["SIZE 1000", "AUTH LOGIN PLAIN", "HELP"])
        #expect(log.startedTLS)
        #expect(log.authCode == 235)
        #expect(!String(describing: log).contains("AGphbmUAc2VjcmV0"))
    }

    @Test func aRefusedLoginIsItsLastAnswerAndTheChallengeRepliesAreNotKept() {
        var log = ReplyLog()
        say(&log, "AUTH LOGIN\r\n", "334 VXNlcm5hbWU6\r\n")
        say(&log, "amFuZQ==\r\n", "334 UGFzc3dvcmQ6\r\n")
        say(&log, "c2VjcmV0\r\n", "535 5.7.8 Authentication credentials invalid\r\n")
        #expect(log.authCode == 535)
        #expect(!String(describing: log).contains("c2VjcmV0"))
    }
}
