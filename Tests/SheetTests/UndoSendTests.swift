import Foundation
import Testing
import TestSupport

/// Undo send and the signature, in the sheet as a person uses it (docs/desktop-service.md,
/// "Undo send and Send Later"): Send holds the message in the outbox with Undo in a toast
/// for `undo-send=` seconds (5 by default), then sends it; what arrives at a real SMTP
/// server is judged by Python's `email` package.
extension SheetTests {
    /// Undo within the hold: the server gets nothing, the outbox keeps nothing, and the
    /// message is back in the sheet to edit.
    @Test func undoWithinTheHoldSendsNothingAndGivesTheMessageBack() throws {
        let server = try SMTPTestServer(.plain)
        try lengthenTheUndoHold(sandbox)
        try writeAccount(sandbox, port: server.port, security: "none")
        let program = try start(["open", "mailto:joe@example.com?subject=Oops", "--json"])
        let steps = try desktop.drive([
            "wait-sheet", "type:Message:Not this one.", "press:Send", "wait-label:Sending in", "state:Message", "names",
            screenshot("undo-toast"), "press:Undo", "wait-label:Not sent: the message is back", "state:Message",
            screenshot("undo-undone"),
        ])
        let toast = try #require(steps.first { $0["step"] as? String == "wait-label" })
        #expect((toast["text"] as? String)?.hasPrefix("Sending in") == true, "\(steps)")
        // The toast's buttons named once each (libadwaita 1.2 names Undo twice and its × not
        // at all): what a screen reader speaks. Dismissing it is SheetActionTests'.
        let names = try #require(steps.first { $0["step"] as? String == "names" }?["names"] as? [String])
        #expect(names.contains("push button: Undo") && names.contains("push button: Dismiss"), "\(names)")
        #expect(!names.contains { $0.hasSuffix("Undo Undo") }, "\(names)")
        let states = steps.filter { $0["step"] as? String == "state" }
        #expect(states.first?["editable"] as? Bool == false, "read-only while held: \(states)")
        #expect(states.last?["editable"] as? Bool == true, "back to edit: \(states)")
        #expect(states.last?["text"] as? String == "Not this one.", "\(states)")
        // Undone: the outbox, where every message is sent from, has nothing left of it.
        #expect(try outboxEntries().isEmpty)
        _ = try desktop.drive(["press:Cancel", "press:Discard", "wait-gone"])
        let result = program.finish()
        #expect(result.status == 4, "\(result)")
        // Counted once the sheet's program has ended.
        #expect(server.messages.isEmpty)
        #expect(try outcomes().contains { $0["result"] as? String == "cancelled" && $0["path"] as? String == "direct" })
    }

    /// Without Undo: held in the outbox (listed with its time) while the toast counts
    /// down, then exactly one message arrives, after the hold, and the sheet closes.
    @Test func withoutUndoExactlyOneMessageArrivesAfterTheHold() throws {
        let server = try SMTPTestServer(.plain)
        try lengthenTheUndoHold(sandbox)
        try writeAccount(sandbox, port: server.port, security: "none")
        let program = try start(["open", "mailto:joe@example.com?subject=Held&body=Going%20out", "--json"])
        _ = try desktop.drive(["wait-sheet", "press:Send", "wait-label:Sending in"])
        let holdEnds = try heldUntil()
        let text = try run(mailtoRouteBinary, ["outbox", "list"], environment: environment)
        #expect(text.stdout.hasPrefix("Held until their time (1)"), "\(text)")
        #expect(text.stdout.contains("undo send"), "\(text)")
        // `outbox flush` is no way around the hold: it sends nothing of it.
        let flush = try run(mailtoRouteBinary, ["outbox", "flush", "--json"], environment: environment)
        #expect(!flush.stdout.contains("\"result\": \"sent\""), "\(flush)")
        _ = try desktop.drive(["wait-gone"], timeout: 20)
        let result = program.finish()
        #expect(result.status == 0, "\(result)")
        let json = try jsonObject(result.stdout)
        #expect(json["result"] as? String == "sent", "\(json)")
        #expect(server.messages.count == 1)
        #expect(try arrival(of: try #require(server.messages.first)) >= holdEnds, "sent at the end of the hold")
        // The sheet's program, which held and sent it, has quit: counted now.
        #expect(server.messages.count == 1, "exactly one")
        #expect(try outboxEntries().isEmpty)
        let view = try pythonView(of: try #require(server.messages.first))
        #expect((view["headers"] as? [String: String])?["Subject"] == "Held")
    }

    /// The window closed during the hold of a sheet that is not the service's: the hold
    /// runs on without the window (none waits hidden), the message goes at its time, once,
    /// and the click reports it sent.
    @Test func closingTheWindowDuringTheHoldSendsAtItsTime() throws {
        let server = try SMTPTestServer(.plain)
        try lengthenTheUndoHold(sandbox)
        try writeAccount(sandbox, port: server.port, security: "none")
        let program = try start(["open", "mailto:joe@example.com?subject=Closed&body=Going%20out", "--json"])
        _ = try desktop.drive(["wait-sheet", "press:Send", "wait-label:Sending in"])
        let holdEnds = try heldUntil()
        _ = try desktop.drive(["press:Close", "wait-gone"])
        let result = program.finish(timeout: 30)
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "sent", "\(result)")
        #expect(server.messages.count == 1)
        #expect(try arrival(of: try #require(server.messages.first)) >= holdEnds, "not before the end of the hold")
        #expect(try outboxEntries().isEmpty)
    }

    /// The account's signature is in the sheet below a new message, after `-- `, and goes
    /// out as the user left it; `undo-send=0` sends at once.
    @Test func signatureFollowsDashDashSpaceAndUndoSendZeroSendsAtOnce() throws {
        let server = try SMTPTestServer(.plain)
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        let written = try String(contentsOf: config, encoding: .utf8)
        try (written + "signature=Jane Doe\\nExample Org\n[route]\nundo-send=0\n").write(to: config, atomically: true, encoding: .utf8)
        let program = try start(["open", "mailto:joe@example.com?subject=Signed", "--json"])
        let steps = try desktop.drive(["wait-sheet", "text:Hello Joe,", "state:Message", screenshot("signature"), "press:Send", "wait-gone"])
        let shown = try #require(steps.first { $0["step"] as? String == "state" })
        #expect((shown["text"] as? String)?.hasSuffix("\n-- \nJane Doe\nExample Org") == true, "\(shown)")
        let result = program.finish()
        #expect(result.status == 0, "\(result)")
        #expect(server.messages.count == 1)
        let view = try pythonView(of: try #require(server.messages.first))
        let parts = try #require(view["parts"] as? [[String: Any]])
        let body = try #require(parts.first { $0["type"] as? String == "text/plain" })
        let text = (body["text"] as? String)?.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(text?.hasPrefix("Hello Joe,") == true, "\(body)")
        #expect(text?.contains("\n-- \nJane Doe\nExample Org") == true, "\(body)")
    }

    /// The end of the hold of the one message held now, as the outbox lists it (a whole
    /// second: the hold may end within it).
    func heldUntil() throws -> Date {
        let list = try run(mailtoRouteBinary, ["outbox", "list", "--json"], environment: environment)
        let queued = try #require(try jsonObject(list.stdout)["queued"] as? [[String: Any]])
        #expect(queued.count == 1 && queued.first?["hold"] as? String == "undo", "\(list)")
        let text = try #require(queued.first?["nextAttempt"] as? String, "\(list)")
        let formatter = ISO8601DateFormatter()
        return try #require(formatter.date(from: text), "\(text)")
    }

    /// When the server received `message` (its file's time).
    func arrival(of message: URL) throws -> Date {
        try #require(try FileManager.default.attributesOfItem(atPath: message.path)[.modificationDate] as? Date)
    }

    func outboxEntries() throws -> [String] {
        let outbox = sandbox.stateHome.appendingPathComponent("mailto-route/outbox")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != "failed" }
    }
}
