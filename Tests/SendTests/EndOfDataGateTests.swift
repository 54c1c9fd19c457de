import Foundation
import SMTPTransport
import Testing
import TestSupport

/// `RawMessage.beforeEnd`, on which an outbox flush's promise rests (a kill repeats at
/// most one message): it is called once per message, after the server said to go on with
/// the data and before the last of it; when it throws, the server gets no end and
/// accepts nothing, and the session's next message goes through.
@Suite struct EndOfDataGateTests {
    @Test func aMessageIsNotAcceptedBeforeItsGateLetsItGo() throws {
        let server = try SMTPTestServer(.plain)
        let session = try SMTPSession(SMTPServer(host: "127.0.0.1", port: server.port, security: .none))
        let message = Array("From: jane@example.org\r\nTo: joe@example.com\r\nMessage-ID: <gate@example.org>\r\n\r\nHello\r\n".utf8)
        let calls = Calls()

        // The gate is asked once the server has heard DATA (nothing arrived yet), once.
        let receipt = try session.send(RawMessage(.bytes(message), envelopeFrom: "jane@example.org", recipients: ["joe@example.com"],
                                                  beforeEnd: { calls.record(arrived: server.messages.count) }))
        #expect(receipt.accepted == ["joe@example.com"])
        #expect(calls.arrivedAtEachCall == [0])
        #expect(server.messages.count == 1)

        // A gate that says no: the data never ends, the server keeps nothing.
        struct Refused: Error {}
        #expect {
            _ = try session.send(RawMessage(.bytes(message), envelopeFrom: "jane@example.org", recipients: ["joe@example.com"],
                                            beforeEnd: { throw Refused() }))
        } throws: { error in
            (error as? SMTPError)?.kind == .transient
        }
        // The next message over the same session arrives (a new connection: libcurl closes
        // one whose data it broke off), and the refused one never did: counted once the
        // server has seen that connection close, after which nothing can come of it.
        _ = try session.send(RawMessage(.bytes(message), envelopeFrom: "jane@example.org", recipients: ["joe@example.com"]))
        try #require(server.firstClose() != nil, "the connection of the refused message was never closed")
        #expect(server.messages.count == 2)
    }
}

/// What a gate saw, from the sending thread.
private final class Calls: @unchecked Sendable {
    private let lock = NSLock()
    private var arrived: [Int] = []

    func record(arrived count: Int) {
        lock.withLock { arrived.append(count) }
    }

    var arrivedAtEachCall: [Int] { lock.withLock { arrived } }
}
