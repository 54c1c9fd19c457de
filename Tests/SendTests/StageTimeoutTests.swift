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
            case .endOfMessage: try SMTPTestServer(.plain, dataDelay: 60)
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
    }

    @Test(arguments: Stage.allCases)
    func aServerSilentAtThisStageHoldsASendForTimeout(_ stage: Stage) throws {
        let sandbox = try Sandbox()
        let server = try stage.server()
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        try (String(contentsOf: config, encoding: .utf8) + "timeout=2\n").write(to: config, atomically: true, encoding: .utf8)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x", "--json"], in: sandbox)
        // The wait on the server, as the server saw it: from its accepting the connection to
        // the client's closing it. The program's start-up before it and its queueing,
        // report and exit after it are not the wait (on a loaded machine each took more
        // than half a second).
        let accepted = try #require(server.acceptedTimes.first)
        let closed = try #require(server.firstClose(), "the client never closed the connection")
        let elapsed = closed.timeIntervalSince(accepted)
        #expect(result.status == 75, "\(result)")
        let error = try #require(try jsonObject(result.stdout)["error"] as? [String: String], "\(result)")
        #expect(error["kind"] == "transient")
        #expect(error["message"]?.contains("timed out") == true, "\(error)")
        if let unanswered = stage.unanswered {
            #expect(error["message"]?.contains(unanswered) == true, "\(error)")
        }
        // The requirement itself: timeout= and not more (the session before the silence,
        // and the report after it, fit in the half second).
        #expect(abs(elapsed - 2) <= 0.5, "a server silent at \(stage.rawValue) held a send for \(elapsed) s with timeout=2")
    }
}
