import Foundation
import Testing
import TestSupport

/// `timeout=` bounds every wait on the server, at every stage of the session: a server
/// that goes silent holds `send` for `timeout=` seconds (and not a second or a QUIT's wait
/// more), then the message is queued with a reason that names what went unanswered.
@Suite struct StageTimeoutTests {
    enum Stage: String, CaseIterable, CustomTestStringConvertible {
        case greeting, ehlo, mailFrom, rcptTo, data, endOfMessage

        var testDescription: String { rawValue }

        func server() throws -> SMTPTestServer {
            switch self {
            case .greeting: try SMTPTestServer(.silent)
            case .ehlo: try SMTPTestServer(.plain, silentAfter: .ehlo)
            case .mailFrom: try SMTPTestServer(.plain, silentAfter: .mail)
            case .rcptTo: try SMTPTestServer(.plain, silentAfter: .rcpt)
            case .data: try SMTPTestServer(.plain, silentAfter: .data)
            case .endOfMessage: try SMTPTestServer(.plain, silentAfter: .endOfMessage)
            }
        }

        /// What the reason says went unanswered; `nil` where libcurl's own limit on the
        /// connection's set-up may come first and speak for itself.
        var unanswered: String? {
            switch self {
            case .greeting, .ehlo: nil
            case .mailFrom: "no answer to MAIL FROM within 2 s"
            case .rcptTo: "no answer to RCPT TO within 2 s"
            case .data: "no answer to DATA within 2 s"
            case .endOfMessage: "no answer to the end of the message within 2 s"
            }
        }

        /// The connection's set-up (the greeting, EHLO) is timed from before the connection
        /// is made (libcurl's connect limit, and the session's watch): from before anything
        /// the server says, so only the run's start comes surely before it.
        var timedFromTheStart: Bool { unanswered == nil }
    }

    @Test(arguments: Stage.allCases)
    func aServerSilentAtThisStageHoldsASendForTimeout(_ stage: Stage) throws {
        let sandbox = try Sandbox()
        let server = try stage.server()
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        try (String(contentsOf: config, encoding: .utf8) + "timeout=2\n").write(to: config, atomically: true, encoding: .utf8)
        let launched = Date()
        // A send that never gave up is killed at the harness's patience, and fails here.
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x", "--json"], in: sandbox)
        #expect(result.status == 75, "\(result)")
        let error = try #require(try jsonObject(result.stdout)["error"] as? [String: String], "\(result)")
        #expect(error["kind"] == "transient")
        #expect(error["message"]?.contains("timed out") == true, "\(error)")
        // The session's own watch ended the wait, at timeout=: its reason names the silence
        // and the 2 s (libcurl's limits, a second later, would speak in their own words).
        if let unanswered = stage.unanswered {
            #expect(error["message"]?.contains(unanswered) == true, "\(error)")
        }
        // Not before the timeout, as the server measured it: from a moment no later than
        // the start of the client's clock (the server's last word; for the set-up, the
        // run's start) to the close the server saw, which load can only make later. A
        // hundredth of a second for the two clocks' rounding.
        let closed = try #require(server.firstClose(), "the client never closed the connection")
        let began = stage.timedFromTheStart ? launched : try #require(server.silentSince.first, "the server never went silent")
        let waited = closed.timeIntervalSince(began)
        #expect(waited >= 2 - 0.01, "a server silent at \(stage.rawValue) was given up after \(waited) s with timeout=2")
        // And not a QUIT's wait more: the client hung up without another word.
        #expect(server.heardInSilence.isEmpty, "\(server.heardInSilence)")
    }
}
