import Foundation
import Testing
import TestSupport

/// RFC 5322 name-addr wherever a person gives an address: `send --to`, a link, xdg-email.
/// The name goes out with the address (RFC 2047-encoded when not ASCII), the envelope has
/// the bare address, and what arrives is read back by Python's email package.
@Suite struct NameTests {
    func headers(_ message: URL) throws -> [String: String] {
        try #require(try pythonView(of: message)["headers"] as? [String: String])
    }

    @Test func namesGivenToSendArriveWithTheirAddresses() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let result = try mailtoRoute(
            ["send", "--to", "Asa Berg <asa@example.org>", "--cc", "Jürgen Groß <juergen@example.org>",
             "--bcc", "\"Berg, Eva\" <eva@example.org>, ann@example.org", "--subject", "Names", "--body", "Hi\n"],
            in: sandbox)
        #expect(result.status == 0, "\(result)")
        let message = try #require(server.messages.first)
        let fields = try headers(message)
        #expect(fields["To"] == "Asa Berg <asa@example.org>")
        #expect(fields["Cc"] == "Jürgen Groß <juergen@example.org>")
        #expect(try server.envelope(of: message)["rcpt_tos"] as? [String]
            == ["asa@example.org", "juergen@example.org", "eva@example.org", "ann@example.org"])
        // Not ASCII: an encoded-word on the wire (RFC 2047), never raw UTF-8 in a header.
        let raw = try String(contentsOf: message, encoding: .utf8)
        #expect(raw.contains("=?utf-8?") && !raw.contains("Groß"), "\(raw)")
    }

    /// A link that names its recipient, and xdg-email given one (its hook, a standing
    /// policy=direct so that it sends without a question).
    @Test(arguments: ["link", "xdg-email"])
    func aNameInALinkOrGivenToXDGEmailIsKept(way: String) throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let config = sandbox.configHome.appendingPathComponent("mailto-route/config")
        try (String(contentsOf: config, encoding: .utf8) + "[route]\npolicy=direct\n").write(to: config, atomically: false, encoding: .utf8)
        let result: RunResult
        if way == "link" {
            result = try routeWithoutTerminal(["open", "mailto:Asa%20Berg%20%3Casa@example.org%3E?subject=Hi"], in: sandbox)
        } else {
            try sandbox.installXDGEmailHook()
            result = try xdgEmail(["--subject", "Hi", "Asa Berg <asa@example.org>"], in: sandbox)
        }
        #expect(result.status == 0, "\(result)")
        let message = try #require(server.messages.first, "\(result)")
        #expect(try headers(message)["To"] == "Asa Berg <asa@example.org>")
    }

    /// Only a bad address is refused, and the error is about the address, not the name.
    @Test func aBadAddressIsRefusedForWhatIsWrongWithIt() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let result = try mailtoRoute(["send", "--to", "Asa Berg <asa@exa mple.org>", "--body", "x"], in: sandbox)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("asa@exa mple.org") && !result.stderr.contains("Asa Berg"), "\(result)")
        #expect(server.messages.isEmpty)
    }
}
