import Foundation
import Testing
import TestSupport

/// docs/design.md rule 10, the half a person reads: a failure is told in the user's language
/// in the project's own sentences, never in libcurl's English, whose words are kept for
/// `--json` and the log. A clicked link under `policy=direct` (standing consent, so that no
/// question comes first), its account's server a loopback port nobody listens on, no
/// terminal: the message is queued, and the notification says so.
@Suite struct ReadableFailureTests {
    /// What libcurl says of a refused connection, in part: none of it may reach a person.
    static let libcurlWords = ["Failed to connect", "Couldn't connect", "after 0 ms", "Could not resolve"]

    func setUp() throws -> (Sandbox, Int32) {
        let sandbox = try Sandbox()
        let (port, descriptor) = try unlistenedPort()
        let config = try writeAccount(sandbox, port: port, security: "none")
        try (String(contentsOf: config, encoding: .utf8) + "[route]\npolicy=direct\n").write(to: config, atomically: false, encoding: .utf8)
        return (sandbox, descriptor)
    }

    func click(_ sandbox: Sandbox, bus: PrivateSessionBus, locale: String, json: Bool) throws -> RunResult {
        let environment = inLocale(locale, sandbox.environment(["DBUS_SESSION_BUS_ADDRESS": bus.address]))
        return try run("/usr/bin/setsid", ["-w", mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Hallo"] + (json ? ["--json"] : []),
                       environment: environment, timeout: 60)
    }

    @Test func aGermanNotificationSaysWhatHappenedInGermanWithoutLibcurlsWords() throws {
        try compileCatalogs()
        let (sandbox, descriptor) = try setUp()
        defer { close(descriptor) }
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus)
        let result = try click(sandbox, bus: bus, locale: "de_DE.UTF-8", json: false)
        #expect(result.status == 75, "\(result)")
        let told = try #require(notifications.notifications.last, "\(result)")
        #expect(told.summary.hasPrefix("Noch nicht gesendet: der Mailserver antwortet nicht. Es wird um "), "\(told.summary)")
        // Not the outbox id, not the server's address: those are for `outbox list` and the log.
        #expect(!told.body.contains("127.0.0.1") && !told.summary.contains("127.0.0.1"), "\(told.body)")
        // Normal urgency: it goes away by itself (the outbox retries it; nothing to do).
        #expect(told.urgency == 1)
        for words in Self.libcurlWords {
            #expect(!told.summary.contains(words) && !told.body.contains(words), "\(told)")
            #expect(!result.stdout.contains(words) && !result.stderr.contains(words), "\(result)")
        }
        #expect((result.stdout + result.stderr).contains("keine Verbindung zu 127.0.0.1:"), "\(result)")
    }

    /// JSON is for programs: the sentence in English and libcurl's own words as the detail,
    /// with the cause as a word; the log keeps the cause and the detail too.
    @Test func jsonAndTheLogKeepLibcurlsWordsAndTheCause() throws {
        let (sandbox, descriptor) = try setUp()
        defer { close(descriptor) }
        let bus = try PrivateSessionBus()
        _ = try ScriptedNotificationServer(on: bus)
        let result = try click(sandbox, bus: bus, locale: "de_DE.UTF-8", json: true)
        #expect(result.status == 75, "\(result)")
        let error = try #require(try jsonObject(result.stdout)["error"] as? [String: Any])
        #expect(error["cause"] as? String == "connect")
        #expect((error["message"] as? String)?.hasPrefix("cannot connect to 127.0.0.1:") == true, "\(error)")
        #expect((error["detail"] as? String)?.contains("Couldn't connect") == true, "\(error)")
        #expect(try jsonObject(result.stdout)["nextAttempt"] is String)
        let log = try String(contentsOf: sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log"), encoding: .utf8)
        let line = try jsonObject(String(try #require(log.split(separator: "\n").last)))
        #expect(line["errorCause"] as? String == "connect")
        #expect((line["errorDetail"] as? String)?.contains("Couldn't connect") == true, "\(line)")
        // And `outbox show`, for whoever looks into it, on a line of its own.
        let id = try #require(try jsonObject(result.stdout)["outboxId"] as? String)
        let show = try run(mailtoRouteBinary, ["outbox", "show", id], environment: sandbox.environment([:]))
        let details = show.stdout.split(separator: "\n").first { $0.hasPrefix("Details:") }
        #expect(details?.contains("Couldn't connect") == true, "\(show)")
    }
}
