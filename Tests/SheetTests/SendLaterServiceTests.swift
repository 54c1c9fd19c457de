import Foundation
import Testing
import TestSupport

/// Send Later and a held Send as the desktop service carries them: the outbox has the
/// message, so a kill -9 of the service loses nothing and sends nothing twice; the next
/// start of the service (here the `own-outbox` action the command line and the login's
/// autostart entry use) sends it at its time.
extension ServiceTests.Service {
    /// Send Later at a time of one's own (two hours ahead), the service killed with SIGKILL
    /// meanwhile and started again: the message is kept, listed with its time, and goes
    /// once, at the next start's **Send now**. (That it goes at its time, and not before, is
    /// the service's own behaviour: DesktopServiceTests, on a clock the test moves.)
    @Test func sendLaterAtAChosenTimeIsKeptThroughAKillOfTheService() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let notifications = try GtkNotificationServer(environment: environment)
        let program = try click(["open", "mailto:joe@example.com?subject=Later%20on&body=x", "--json"])
        _ = try desktop.drive(["wait-sheet", "open-menu:Send Later", screenshot("send-later-menu"), "choose:At a Chosen Time…",
                                  "wait-window:Send at"], timeout: 30)
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        let time = formatter.string(from: Date().addingTimeInterval(2 * 3_600))
        _ = try desktop.drive(["type:Time:\(time)", screenshot("send-later-time"), "press:Schedule"], timeout: 30)
        // The click ends once the sheet is done with (its status says how).
        let result = program.finish()
        #expect(result.status == 75, "held in the outbox: \(result)")
        try stopService(signal: SIGKILL)
        let json = try jsonObject(result.stdout)
        #expect(json["hold"] as? String == "later", "\(json)")
        let notBefore = try #require(json["notBefore"] as? String)
        #expect(notBefore.contains("T\(time)"), "the time typed, on the local clock: \(notBefore)")
        let list = try run(mailtoRouteBinary, ["outbox", "list", "--json"], environment: environment)
        let queued = try #require(try jsonObject(list.stdout)["queued"] as? [[String: Any]])
        #expect(queued.count == 1 && queued.first?["hold"] as? String == "later", "\(list)")
        #expect(queued.first?["nextAttempt"] as? String == notBefore)
        let id = try #require(queued.first?["id"] as? String)
        let text = try run(mailtoRouteBinary, ["outbox", "list"], environment: environment)
        #expect(text.stdout.contains("send later"), "\(text)")
        let told = try #require(notifications.lastShown())
        #expect((told["buttons"] as? [[String: Any]])?.first?["label"] as? String == "Send now", "\(told)")
        #expect(server.messages.isEmpty, "its holder is gone, and its time has not come")
        // The next start (a login, a click) owns the outbox again; Send now sends it.
        #expect(try activateAction("own-outbox").status == 0)
        #expect(try activateAction("retry-outbox", id).status == 0)
        #expect(try waitForAnEmptyOutbox(seconds: 30))
        // Counted once the sender has quit (nothing is queued): nothing is left to send it again.
        #expect(waitForServiceToLeave(timeout: 30), "the service quits once nothing is queued")
        #expect(server.messages.count == 1, "once")
        let view = try pythonView(of: try #require(server.messages.first))
        #expect((view["headers"] as? [String: String])?["Subject"] == "Later on")
    }

    /// A Send held for Undo when the service is killed: the click fails (its sheet is
    /// gone), the message is not lost, and the service's next start sends it once.
    @Test func heldSendSurvivesAKillOfTheServiceAndIsSentOnce() throws {
        let server = try SMTPTestServer(.plain)
        try lengthenTheUndoHold(sandbox)
        try writeAccount(sandbox, port: server.port, security: "none")
        let program = try click(["open", "mailto:joe@example.com?subject=Held%20over", "--json"])
        // Typed, and kept in the sheet's recovery file (written a moment later), before Send.
        _ = try desktop.drive(["wait-sheet", "type:Message:Written, then held"], timeout: 30)
        let recovery = sandbox.stateHome.appendingPathComponent("mailto-route/recovery")
        func recoveryFiles() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: recovery.path)) ?? []).filter { $0.hasSuffix(".recovery") }
        }
        try waitUntil("the sheet keeps what was typed in its recovery file") {
            recoveryFiles().contains { (try? String(contentsOf: recovery.appendingPathComponent($0), encoding: .utf8))?.contains("held") == true }
        }
        _ = try desktop.drive(["press:Send", "wait-label:Sending in"], timeout: 30)
        try stopService(signal: SIGKILL)
        _ = program.finish()
        // Its holder and the click are gone: nothing is left that could have sent it.
        #expect(server.messages.isEmpty, "its holder is gone: nobody sent it")
        #expect(try outboxEntries().count == 1, "and it is not lost")
        // The outbox has it: no recovery file is left to become a second copy, a draft.
        #expect(recoveryFiles().isEmpty, "\(recoveryFiles())")
        #expect(try activateAction("own-outbox").status == 0)
        #expect(try waitForAnEmptyOutbox(seconds: 30))
        // Counted once the sender has quit: nothing is left to send it again.
        #expect(waitForServiceToLeave(timeout: 30), "the service quits once nothing is queued")
        #expect(server.messages.count == 1, "once")
    }

    /// The window closed during the Undo time: the message still waits, and the
    /// notification (GNOME's org.gtk.Notifications) has **Undo**, which takes it back and
    /// shows it again in a sheet; nothing is sent. The window is closed while a screen
    /// reader floods the service with questions about the window past the last.
    @Test func undoInTheNotificationAfterTheWindowClosedSendsNothingAndShowsTheSheetAgain() throws {
        let server = try SMTPTestServer(.plain)
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        // An Undo time that the close under the flood and the Undo fit in on a loaded machine.
        let hold = 10.0
        try (try String(contentsOf: config, encoding: .utf8) + "[route]\nundo-send=\(Int(hold))\n").write(to: config, atomically: true, encoding: .utf8)
        let notifications = try GtkNotificationServer(environment: environment)
        let program = try click(["open", "mailto:joe@example.com?subject=Second%20thoughts&body=x", "--json"])
        // Closed while a screen reader asks for the window past the last: the service, which
        // holds the message, must not crash on the answer (GTK 4.8 answers with a hidden
        // window when there is one).
        let closing = try desktop.drive(["wait-sheet", "press:Send", "wait-label:Sending in",
                                         "press-past-the-end:Message to joe@example.com:Close:mailto-route-desktop", "wait-gone"], timeout: 30)
        let asked = try #require(closing.first { $0["step"] as? String == "press-past-the-end" }, "\(closing)")
        #expect((asked["asked"] as? Int ?? 0) > 100, "\(asked)")
        let told = try #require(notifications.lastShown())
        let button = try #require((told["buttons"] as? [[String: Any]])?.first, "\(told)")
        #expect(button["label"] as? String == "Undo")
        #expect(button["action"] as? String == "app.undo-send")
        let list = try run(mailtoRouteBinary, ["outbox", "list", "--json"], environment: environment)
        let id = try #require((try jsonObject(list.stdout)["queued"] as? [[String: Any]])?.first?["id"] as? String, "\(list)")
        #expect((button["target"] as? String)?.contains(id) == true, "\(button)")
        #expect(try activateAction("undo-send", id).status == 0)
        // The sheet again, editable, with the message as it was: the postcondition, not the
        // toast that says so (it goes after 5 s, which a loaded machine's tree walk can miss;
        // the in-window Undo test reads the toast).
        let steps = try desktop.drive(["wait-sheet", "state:Message", screenshot("undo-from-notification")], timeout: 20)
        let state = steps.last { $0["step"] as? String == "state" }
        #expect(state?["editable"] as? Bool == true, "\(steps)")
        #expect(state?["text"] as? String == "x", "\(steps)")
        // Undone: the outbox has nothing left to send from.
        #expect(try outboxEntries().isEmpty)
        _ = try desktop.drive(["press:Cancel", "press:Discard", "wait-gone"])
        let result = program.finish()
        #expect(result.status == 4, "\(result)")
        // Counted once every sender has ended: the click, and the service (it quits with
        // nothing open or queued).
        #expect(waitForServiceToLeave(timeout: 30), "the service quits once nothing is open or queued")
        #expect(server.messages.isEmpty, "nothing sent after Undo")
    }

    /// The window closed during the Undo time, and no Undo: the message, as typed, goes at
    /// the end of the time, once, though no window is left (the rest of the time runs on
    /// without one), and the click that opened the sheet reports it sent.
    @Test func closingTheWindowDuringTheHoldStillSendsTheMessageOnceAtItsTime() throws {
        let server = try SMTPTestServer(.plain)
        try lengthenTheUndoHold(sandbox)
        try writeAccount(sandbox, port: server.port, security: "none")
        let program = try click(["open", "mailto:joe@example.com?subject=Off%20it%20goes", "--json"])
        let driven = Date()
        let steps = try desktop.drive(["wait-sheet", "type:Message:Typed before Send", "press:Send", "wait-label:Sending in",
                                       "press:Close", "wait-gone"], timeout: 30)
        let result = program.finish(timeout: 30)
        #expect(result.status == 0, "\(result)")
        // Not before the end of the Undo time: Send was pressed after the message was typed
        // (the driver's time of that step, from its start, which came after `driven`), and
        // the server took the connection no sooner than the hold after it, however long the
        // steps took on a loaded machine.
        let typedAfter = try #require(steps.first { $0["step"] as? String == "type" }?["seconds"] as? Double)
        let sendNoSooner = driven.addingTimeInterval(typedAfter + Double(undoTestHold))
        let accepted = try #require(server.acceptedTimes.first)
        #expect(accepted >= sendNoSooner, "sent \(sendNoSooner.timeIntervalSince(accepted)) s before the end of the Undo time")
        let json = try jsonObject(result.stdout)
        #expect(json["result"] as? String == "sent", "\(json)")
        #expect(server.messages.count == 1)
        let view = try pythonView(of: try #require(server.messages.first))
        #expect((view["headers"] as? [String: String])?["Subject"] == "Off it goes")
        let text = (view["parts"] as? [[String: Any]])?.compactMap { $0["text"] as? String }.joined() ?? ""
        #expect(text.contains("Typed before Send"), "\(view)")
        #expect(try waitForAnEmptyOutbox(seconds: 20))
        #expect(server.messages.count == 1, "once: nothing is left in the outbox to send it again")
    }

    /// **Undo** in the notification after the service that held the Send was killed: the
    /// service's next start (the button starts it) takes the message out of the outbox
    /// before its time and saves it as a draft; nothing is sent, then or later.
    @Test func undoAfterTheServiceWasKilledSavesADraftAndSendsNothing() throws {
        let server = try SMTPTestServer(.plain)
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        // A long Undo time: the kill and the restart fit in it on a loaded machine.
        try (try String(contentsOf: config, encoding: .utf8) + "[route]\nundo-send=30\n").write(to: config, atomically: true, encoding: .utf8)
        let program = try click(["open", "mailto:joe@example.com?subject=Rather%20not&body=x", "--json"])
        _ = try desktop.drive(["wait-sheet", "press:Send", "wait-label:Sending in"], timeout: 30)
        try stopService(signal: SIGKILL)
        _ = program.finish()
        let list = try run(mailtoRouteBinary, ["outbox", "list", "--json"], environment: environment)
        let id = try #require((try jsonObject(list.stdout)["queued"] as? [[String: Any]])?.first?["id"] as? String, "\(list)")
        let notifications = try GtkNotificationServer(environment: environment)
        #expect(try activateAction("undo-send", id).status == 0)
        try waitUntil("the held message is saved as a draft") { !sandbox.drafts.isEmpty }
        let draft = try #require(sandbox.drafts.first)
        #expect(try sandbox.header("Subject", of: draft) == "Rather not")
        #expect(try outboxEntries().isEmpty)
        let told = try #require(notifications.lastShown())
        #expect((told["buttons"] as? [[String: Any]])?.first?["label"] as? String == "Open", "\(told)")
        // The entry is gone with its claim's undo (above): nothing is left to send it from.
        #expect(server.messages.isEmpty)
    }

    /// The service's action `name` with `target`, as GNOME Shell activates a notification's
    /// button and the command line `own-outbox` (D-Bus activation starts it if need be).
    func activateAction(_ name: String, _ target: String = "") throws -> RunResult {
        try gdbus(["--dest", "io.github.mailto_route.MailtoRoute", "--object-path", "/io/github/mailto_route/MailtoRoute",
                   "--method", "org.freedesktop.Application.ActivateAction", name, "[<'\(target)'>]", "{}"])
    }
}
