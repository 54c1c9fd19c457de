import Foundation
import MailtoCore
import SMTPTransport
import Testing
import TestSupport

/// A person's Stop (the sheet's Cancel during "Sending…": `SendStop`) through libcurl, to
/// a real server on loopback that goes silent: while the server cannot have the message
/// (no end of its data went out) the send ends at the Stop, without a word more; once the
/// end went out, it is too late, and the send's own outcome stands.
@Suite struct StopTests {
    /// Where the server goes silent; `nil`: it never greets.
    static let stages: [SMTPTestServer.Stage?] = [nil, .ehlo, .data]

    @Test(arguments: stages)
    func aStopBeforeTheEndOfTheMessageEndsTheSendAndNothingArrives(_ stage: SMTPTestServer.Stage?) throws {
        let server = try stage.map { try SMTPTestServer(.plain, silentAfter: $0) } ?? SMTPTestServer(.silent)
        let stop = SendStop()
        // A minute's patience: only the Stop can end this send within the test's wait.
        let sending = Sending(to: server, stallTimeout: 60, stop: stop)
        // The server has the connection and keeps silent: the client is waiting on it.
        try waitUntil("the server is silent") { stage == nil ? !server.acceptedTimes.isEmpty : !server.silentSince.isEmpty }
        #expect(stop.ask())
        let error = try #require(try sending.failure(), "a stopped send reported it was sent")
        #expect(error.cause == .stopped, "\(error)")
        #expect(error.kind == .input, "\(error)")
        #expect(stop.wasStopped)
        // The connection was dropped at once, without a QUIT to wait on, and nothing arrived.
        #expect(server.firstClose() != nil, "the client never closed the connection")
        #expect(server.heardInSilence.isEmpty, "\(server.heardInSilence)")
        #expect(server.messages.isEmpty)
    }

    /// Once the end of the message went out, the server may have it: a Stop is refused,
    /// and the send ends as it would have (here, the server's silence times it out).
    @Test func aStopAfterTheEndOfTheMessageIsTooLate() throws {
        let server = try SMTPTestServer(.plain, silentAfter: .endOfMessage)
        let stop = SendStop()
        let sending = Sending(to: server, stallTimeout: 2, stop: stop)
        try waitUntil("the server has the end of the message") { !server.silentSince.isEmpty }
        #expect(!stop.ask())
        let error = try #require(try sending.failure(), "a send the server never answered reported it was sent")
        #expect(error.cause == .timeout, "\(error)")
        #expect(!stop.wasStopped)
    }

    /// One message sent through `SMTPSession` on a thread of its own, as the sheet's worker
    /// sends; `failure` waits for it to end.
    final class Sending: @unchecked Sendable {
        private let ended = DispatchSemaphore(value: 0)
        private var outcome: Result<SMTPReceipt, SMTPError>?

        init(to server: SMTPTestServer, stallTimeout: Int, stop: SendStop) {
            let account = SMTPServer(host: "127.0.0.1", port: server.port, security: .none, allowPlaintext: true,
                                     stallTimeout: stallTimeout)
            let message = RawMessage(.bytes(Array("From: jane@example.org\r\nTo: joe@example.com\r\nSubject: Stop\r\n\r\nHi\r\n".utf8)),
                                     envelopeFrom: "jane@example.org", recipients: ["joe@example.com"])
            let thread = Thread { [self] in
                outcome = Result { () throws(SMTPError) in try SMTPSession(account).send(message, stop: stop) }
                ended.signal()
            }
            thread.start()
        }

        /// The send's error once it ended; `nil` when the server took the message.
        func failure() throws -> SMTPError? {
            guard ended.wait(timeout: .now() + patience) == .success, let outcome else {
                throw TestSupportError("the send did not end within \(patience) s")
            }
            if case .failure(let error) = outcome { return error }
            return nil
        }
    }
}
