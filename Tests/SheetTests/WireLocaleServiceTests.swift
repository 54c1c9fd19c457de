import Foundation
import Testing
import TestSupport

/// Rule 10 where it broke: the desktop service, D-Bus activated in a German, Turkish or
/// Persian session. GTK takes the whole locale for its process (`setlocale(LC_ALL, "")`),
/// LC_TIME included, where the command line takes only LC_MESSAGES and LC_CTYPE; a German
/// session's sheet sent `Date: So, 06 Dez 2026`. Each way the service sends (the sheet's
/// Send, a queued message's retry, Send Later, an Email portal request) delivers what
/// Python's `email` reads with an English `Date`, an ASCII header block and no defect.
extension ServiceTests.Service {
    /// The variables that win over LANG, emptied in the activation environment (glibc and
    /// GLib take an empty one as unset): whatever the test runner's environment held, the
    /// service gets the session's LANG in every category.
    static let overLANG = ["LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY",
                           "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT",
                           "LC_IDENTIFICATION"]

    /// Makes this test's session one in `locale`, as a login does: LANG put in the bus's
    /// activation environment with `org.freedesktop.DBus.UpdateActivationEnvironment` (what
    /// gnome-session and dbus-update-activation-environment call), before the service is
    /// first started. The environment of the clicks and portal calls in that session.
    func speak(_ locale: String) throws -> [String: String] {
        try requireLocale(locale)
        #expect(!serviceIsRunning, "a service started before the login's LANG would not have it")
        let entries = (["'LANG': '\(locale)'"] + Self.overLANG.map { "'\($0)': ''" }).joined(separator: ", ")
        let reply = try gdbus(["--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus", "--method",
                               "org.freedesktop.DBus.UpdateActivationEnvironment", "{\(entries)}"])
        guard reply.status == 0 else { throw TestSupportError("UpdateActivationEnvironment: \(reply)") }
        return inLocale(locale, environment)
    }

    /// A session in `locale` (`speak`), the sheet's words in it, and an account on a
    /// recording server.
    func speakWithAnAccount(_ locale: String) throws -> ([String: String], SheetWords, SMTPTestServer) {
        let session = try speak(locale)
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        return (session, SheetWords(locale), server)
    }

    /// The running service was started in `locale` (its `/proc/PID/environ`): what is
    /// judged below was sent by a service in that locale, not by one in English.
    func expectTheServiceRunsIn(_ locale: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(try servicePID())/environ"))
        var variables: [String: String] = [:]
        for entry in bytes.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        #expect(variables["LANG"] == locale, "\(variables.filter { $0.key.hasPrefix("L") })")
        for name in Self.overLANG {
            #expect((variables[name] ?? "").isEmpty, "\(name)=\(variables[name] ?? "") wins over LANG")
        }
    }

    /// What arrived, as Python's `email` reads it: no defect, a `Date` it parses, an ASCII
    /// header block.
    func expectTheWireIsLocaleFree(_ message: URL, _ locale: String) throws {
        let view = try pythonView(of: message)
        #expect(wireProblems(in: view) == [], "\(locale)")
        #expect(view["date"] is String, "\(locale): \((view["headers"] as? [String: Any])?["Date"] ?? "no Date")")
    }

    // MARK: - The sheet's Send

    /// A click in the session opens the sheet in the service (D-Bus activated in the
    /// locale); Send delivers the message, once, with an English Date.
    @Test(arguments: wireLocales)
    func sheetSendInTheServiceUnderALocaleHasAnEnglishDate(_ locale: String) throws {
        let (session, words, server) = try speakWithAnAccount(locale)
        let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Gr%C3%BC%C3%9Fe&body=Hallo",
                                          "--json"], environment: session, directory: sandbox.root)
        _ = try desktop.drive([words.driverStep, "wait-sheet"], timeout: 30, watching: program)
        #expect(serviceIsRunning, "the sheet is the service's")
        try expectTheServiceRunsIn(locale)
        _ = try desktop.drive([words.driverStep, screenshot("send-\(locale)"), "press:\(words.send)", "wait-gone"], timeout: 30,
                              watching: program)
        // The click ends with the service's report: the sender has finished.
        let result = program.finish(timeout: 30)
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "sent", "\(result)")
        #expect(server.messages.count == 1)
        let message = try #require(server.messages.first)
        #expect((try pythonView(of: message)["headers"] as? [String: String])?["Subject"] == "Grüße")
        try expectTheWireIsLocaleFree(message, locale)
    }

    // MARK: - A queued message, retried

    /// The server is down at Send: the service queues the message it built in the locale
    /// and owns the outbox; Retry now (the notification's button, as GNOME Shell presses
    /// it) once the server is back sends that message, once, with an English Date.
    @Test(arguments: wireLocales)
    func aMessageQueuedInTheServiceUnderALocaleIsRetriedWithAnEnglishDate(_ locale: String) throws {
        let session = try speak(locale)
        let words = SheetWords(locale)
        let down = try SMTPTestServer(.plain)
        let port = down.port
        down.stop()
        try writeAccount(sandbox, port: port, security: "none")
        let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Later&body=x", "--json"],
                                         environment: session, directory: sandbox.root)
        _ = try desktop.drive([words.driverStep, "wait-sheet", "press:\(words.send)", "wait-gone"], timeout: 40, watching: program)
        let result = program.finish()
        #expect(result.status == 75, "\(result)")
        let outboxID = try #require(try jsonObject(result.stdout)["outboxId"] as? String, "\(result)")
        // It owns the outbox while the message waits: the one that built it.
        try expectTheServiceRunsIn(locale)
        let server = try SMTPTestServer(.plain, port: port)
        #expect(try activateAction("retry-outbox", outboxID).status == 0)
        #expect(try waitForAnEmptyOutbox(seconds: 30), "not sent within 30 s of Retry now")
        #expect(server.messages.count == 1)
        try expectTheWireIsLocaleFree(try #require(server.messages.first), locale)
    }

    // MARK: - Send Later

    /// Send Later at a time a few seconds ahead, in a Persian session (its own digits): the
    /// service holds the message and sends it at its time, once, with an English Date. One
    /// locale: the wait for the time is this test's cost; the others are the Send's.
    @Test func sendLaterInAPersianSessionArrivesWithAnEnglishDate() throws {
        let locale = "fa_IR.UTF-8"
        let (session, words, server) = try speakWithAnAccount(locale)
        let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Later%20on&body=x", "--json"],
                                         environment: session, directory: sandbox.root)
        _ = try desktop.drive([words.driverStep, "wait-sheet", "open-menu:Send Later", "choose:At a Chosen Time…",
                               "wait-window:Send at"], timeout: 30, watching: program)
        // Far enough ahead for the typing and Schedule on a loaded machine; typed as the
        // sheet reads it (24-hour, ASCII digits), on the clock the service reads.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "HH:mm:ss"
        let time = formatter.string(from: Date().addingTimeInterval(15))
        _ = try desktop.drive([words.driverStep, "type:Time:\(time)", "press:Schedule"], timeout: 30, watching: program)
        let result = program.finish()
        #expect(result.status == 75, "held in the outbox: \(result)")
        let json = try jsonObject(result.stdout)
        #expect(json["hold"] as? String == "later", "\(result)")
        // A time that had passed at Schedule is tomorrow's: then this test cannot wait for it.
        let notBefore = try #require((json["notBefore"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }, "\(json)")
        try #require(notBefore.timeIntervalSinceNow < 60, "\(time) had passed at Schedule: held until \(notBefore)")
        try expectTheServiceRunsIn(locale)
        // Its time, then the send's own: the outbox is empty once it has gone.
        #expect(try waitForAnEmptyOutbox(seconds: 60), "not sent at its time")
        #expect(server.messages.count == 1)
        try expectTheWireIsLocaleFree(try #require(server.messages.first), locale)
    }

    // MARK: - The Email portal

    /// An application's ComposeEmail (as xdg-desktop-portal calls the backend) in the
    /// session: the service's sheet, Send, the portal's response 0, and what arrived has an
    /// English Date.
    @Test(arguments: wireLocales)
    func portalRequestUnderALocaleArrivesWithAnEnglishDate(_ locale: String) throws {
        let (session, words, server) = try speakWithAnAccount(locale)
        let report = try file("report.pdf", "%PDF-1.4 quarterly\n")
        let client = packageRoot.appendingPathComponent("Tests/TestSupport/Servers/portal-client.py").path
        let call = try DesktopProgram(["/usr/bin/python3", client, "--handle", "/org/freedesktop/portal/desktop/request/1_42/w1",
                                       "--app-id", "org.gnome.Nautilus", "--to", "joe@example.com", "--subject", "Zahlen",
                                       "--body", "Anbei.", "--attach", report], environment: session, directory: sandbox.root)
        _ = try desktop.drive([words.driverStep, "wait-sheet"], timeout: 30, watching: call)
        try expectTheServiceRunsIn(locale)
        _ = try desktop.drive([words.driverStep, "press:\(words.send)", "wait-gone"], timeout: 30, watching: call)
        // The portal's answer comes once the service has sent it.
        let result = call.finish(timeout: 30)
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["response"] as? Int == 0, "\(result)")
        #expect(server.messages.count == 1)
        let message = try #require(server.messages.first)
        try expectTheWireIsLocaleFree(message, locale)
        let parts = try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
        #expect(parts.filter { $0["disposition"] as? String == "attachment" }.compactMap { $0["filename"] as? String } == ["report.pdf"])
    }
}
