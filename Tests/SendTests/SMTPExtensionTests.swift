import Foundation
import Outbox
import Testing
import TestSupport

/// SIZE and SMTPUTF8 against aiosmtpd, which offers SIZE and not SMTPUTF8 (Postfix, which
/// offers both, is PostfixTests').
@Suite struct SMTPExtensionTests {
    /// libcurl 7.88 stops reading a message once the octets it wrote, doubled dots
    /// included, reach the size declared: this message's first 64 KiB read (libcurl's
    /// upload buffer) hold 8 lines that start with a dot, so, declared at its own size, its
    /// last 8 octets were never sent. Declared with its dots, it arrives whole.
    @Test func aMessageWhoseDoubledDotsWouldReachItsOwnSizeArrivesWhole() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let buffer = 65_536
        let dots = 8
        var text = "From: Jane Doe <jane@example.org>\r\nTo: joe@example.com\r\nSubject: dots\r\n"
            + "Message-ID: <dots-\(UUID().uuidString)@example.org>\r\n\r\n"
        for index in 0..<dots { text += ".dot line \(index)\r\n" }
        let line = String(repeating: "a", count: 70) + "\r\n"
        while text.utf8.count + line.utf8.count <= buffer + dots - 12 { text += line }
        text += String(repeating: "b", count: buffer + dots - 2 - text.utf8.count) + "\r\n"
        let bytes = Array(text.utf8)
        try #require(bytes.count == buffer + dots)
        try Outbox(directory: sandbox.stateHome.appendingPathComponent("mailto-route/outbox").path)
            .enqueue(OutboxMessage(bytes: bytes, envelopeFrom: "jane@example.org", recipients: ["joe@example.com"]))
        let result = try mailtoRoute(["outbox", "flush"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let received = try #require(server.messages.first)
        let arrived = [UInt8](try Data(contentsOf: received))
        let whole = arrived == bytes
        #expect(whole, "\(arrived.count) of \(bytes.count) octets arrived, ending \(String(decoding: arrived.suffix(20), as: UTF8.self).debugDescription)")
    }

    /// RFC 6531: a server that does not offer SMTPUTF8 gets nothing (libcurl would have sent
    /// the address without declaring it); the error says it is the server that cannot, and
    /// the draft keeps the recipient (it used to be left out of it).
    @Test func aServerWithoutSMTPUTF8GetsNothingAndTheDraftKeepsTheRecipient() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let result = try mailtoRoute(["send", "--to", "jörg@example.org", "--to", "joe@example.com", "--subject", "Grüße",
                                      "--body", "x", "--json"], in: sandbox)
        #expect(result.status == 1, "\(result)")
        let report = try jsonObject(result.stdout)
        let error = try #require(report["error"] as? [String: String])
        #expect(error["kind"] == "permanent")
        #expect(error["message"] == "jörg@example.org needs SMTPUTF8, which 127.0.0.1:\(server.port) does not offer")
        #expect(server.messages.isEmpty)
        #expect((report["warnings"] as? [String] ?? []).isEmpty, "\(report)")
        let draft = URL(fileURLWithPath: try #require(report["draft"] as? String))
        let addresses = try #require(try pythonView(of: draft, utf8Headers: true)["addresses"] as? [String: [[String: String]]])
        #expect(addresses["To"] == [["name": "", "address": "jörg@example.org"], ["name": "", "address": "joe@example.com"]])
    }
}
