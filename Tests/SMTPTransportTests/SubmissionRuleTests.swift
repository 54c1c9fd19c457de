internal import CCurl
import Testing
@testable import SMTPTransport

/// The rules a submission follows before and after the server has spoken, on values.
@Suite struct SubmissionRuleTests {
    /// RFC 1870 §4: `SIZE n` names the limit; bare `SIZE` and `SIZE 0` name none.
    @Test func theServersSizeLimitIsItsEHLOsSIZE() {
        #expect(SMTPSubmission.sizeLimit(in: ["PIPELINING", "SIZE 10240000", "8BITMIME"]) == 10_240_000)
        #expect(SMTPSubmission.sizeLimit(in: ["size 2000000"]) == 2_000_000)
        #expect(SMTPSubmission.sizeLimit(in: ["SIZE"]) == nil)
        #expect(SMTPSubmission.sizeLimit(in: ["SIZE 0"]) == nil)
        #expect(SMTPSubmission.sizeLimit(in: ["SIZES 5", "8BITMIME"]) == nil)
    }

    /// Megabytes to a tenth, as a person compares them, and octets where the two would
    /// read the same (a message just over the limit).
    @Test func sizesReadAsMegabytesUnlessTheyWouldReadTheSame() {
        #expect(SMTPSubmission.megabytes(1_000_000, 5_554_627) == ("1 MB", "5.6 MB"))
        #expect(SMTPSubmission.megabytes(10_240_000, 10_400_000) == ("10.2 MB", "10.4 MB"))
        #expect(SMTPSubmission.megabytes(1_000_000, 1_000_400) == ("1000000 octets", "1000400 octets"))
    }

    @Test func anOversizedMessageRefusedForItsSizeIsAPermanentErrorNamingTheLimit() {
        let server = SMTPServer(host: "127.0.0.1", port: 587)
        for reply in ["552 5.3.4 Message size exceeds fixed limit", "452 4.3.4 Insufficient system storage"] {
            let error = SMTPSubmission.classify(.init(55), responseCode: Int(reply.prefix(3)) ?? 0, reply: reply, refused: [],
                                                detail: "MAIL failed", server: server, oversized: (5_554_627, 1_000_000))
            #expect(error.kind == .permanent)
            #expect(error.message == "127.0.0.1:587 takes messages up to 1 MB; this one is 5.6 MB: \(reply)")
            #expect(error.reply == reply)
        }
        // Another refusal stays what it was, whatever the size.
        let other = SMTPSubmission.classify(.init(55), responseCode: 451, reply: "451 4.3.0 Try again later", refused: [],
                                            detail: "MAIL failed", server: server, oversized: (5_554_627, 1_000_000))
        #expect(other.kind == .transient)
        #expect(!other.message.contains("takes messages up to"))
    }

    /// libcurl's words are English in every locale: they are the error's detail (for
    /// `--json` and the log), and the sentence a person reads is the project's own, with
    /// the cause a notification says in the user's language (rule 10).
    @Test(arguments: [
        (CURLE_COULDNT_CONNECT, "Failed to connect to 127.0.0.1 port 587 after 0 ms: Couldn't connect to server",
         "cannot connect to 127.0.0.1:587", "connect"),
        (CURLE_COULDNT_RESOLVE_HOST, "Could not resolve host: 127.0.0.1", "the name 127.0.0.1 was not found", "name"),
        (CURLE_OPERATION_TIMEDOUT, "Connection timed out after 30001 milliseconds", "127.0.0.1:587 timed out", "timeout"),
        (CURLE_SSL_CONNECT_ERROR, "OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:587",
         "no secure connection (TLS) to 127.0.0.1:587 could be made", "tls"),
        (CURLE_PEER_FAILED_VERIFICATION, "SSL certificate problem: certificate has expired",
         "the certificate of 127.0.0.1:587 is not trusted: it has expired", "certificate"),
    ])
    func libcurlsWordsAreTheDetailNotTheSentence(code: CURLcode, words: String, sentence: String, cause: String) {
        let server = SMTPServer(host: "127.0.0.1", port: 587)
        let error = SMTPSubmission.classify(code, responseCode: 0, reply: "", refused: [], detail: words, server: server)
        #expect(error.message == sentence)
        #expect(error.detail == words)
        #expect(error.cause?.rawValue == cause)
        #expect(error.kind == (cause == "tls" || cause == "certificate" ? .configuration : .transient))
    }

    /// A session the transfer itself ended for silence says what it waited for, in the
    /// project's words, and has no library text to keep.
    @Test func aStalledSessionSaysWhatItWaitedFor() {
        let server = SMTPServer(host: "127.0.0.1", port: 587)
        let error = SMTPSubmission.classify(CURLE_OPERATION_TIMEDOUT, responseCode: 0, reply: "", refused: [], detail: "",
                                            stall: "no answer to MAIL FROM within 2 s", server: server)
        #expect(error.message == "127.0.0.1:587 timed out: no answer to MAIL FROM within 2 s")
        #expect(error.detail == nil)
        #expect(error.cause == .timeout)
    }

    /// RFC 6531: which of the two cannot send an address whose local part is not ASCII:
    /// libcurl before 7.69 (it would send the address without declaring SMTPUTF8), or a
    /// server that does not offer it.
    @Test func smtpUTF8IsRefusedNamingWhichOfTheTwoCannot() {
        let server = "127.0.0.1:587"
        let old = SMTPSubmission.smtpUTF8Refusal("jörg@example.org", libcurl: (0x07_44_00, "7.68.0"), capabilities: ["SMTPUTF8"], server: server)
        #expect(old == "jörg@example.org needs SMTPUTF8, which libcurl 7.68.0 cannot declare (7.69 and later can)")
        let current = (number: 0x07_58_01, text: "7.88.1")
        #expect(SMTPSubmission.smtpUTF8Refusal("jörg@example.org", libcurl: current, capabilities: ["SIZE 1000", "8BITMIME"], server: server)
            == "jörg@example.org needs SMTPUTF8, which 127.0.0.1:587 does not offer")
        #expect(SMTPSubmission.smtpUTF8Refusal("jörg@example.org", libcurl: current, capabilities: ["PIPELINING", "SMTPUTF8"], server: server) == nil)
        // Not asked yet: only libcurl is judged.
        #expect(SMTPSubmission.smtpUTF8Refusal("jörg@example.org", libcurl: current, capabilities: nil, server: server) == nil)
    }
}
