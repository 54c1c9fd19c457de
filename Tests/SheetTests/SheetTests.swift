import Foundation
import Testing
import TestSupport

/// Send holds a message for Undo, 5 s by default: a second here, as an administrator's
/// default (the sandbox's `etc/xdg/mailto-route/config`, below the user's), so that the
/// tests of everything else wait a second, not five, for each message they send. The
/// tests of Undo itself lengthen it (`lengthenTheUndoHold`) or set their own.
func shortenTheUndoHold(_ sandbox: Sandbox) throws {
    try sandbox.write("[route]\nundo-send=1\n", to: fleetDefaults, mode: 0o644)
}

/// The hold of the tests of Undo, in seconds: longer than the default 5, because a step
/// must come within it (Undo, Close, a look at the outbox) after the driver has found the
/// toast, and on a loaded machine (a whole `make test`) finding it took 5 s.
let undoTestHold = 10

/// Sets the hold for Undo to `undoTestHold`, as the administrator's default.
func lengthenTheUndoHold(_ sandbox: Sandbox) throws {
    try sandbox.write("[route]\nundo-send=\(undoTestHold)\n", to: fleetDefaults, mode: 0o644)
}

private let fleetDefaults = "etc/xdg/mailto-route/config"

/// The compose sheet as a person uses it (docs/style.md habit 14): the real window on a real
/// (virtual) display, found and driven through the accessibility tree by the names a
/// screen reader speaks (Servers/sheet-driver.py), what arrived at a real SMTP server
/// judged by Python's `email` package. Each test leaves a screenshot of the state it
/// checks in `.build/sheet-screenshots/NAME.png`. One after another: one screen. What the
/// sheet does with what a person does in it (its actions, questions and checks) is tested
/// in-process (ComposeSheetTests' SheetActionTests); here, what needs the real programs or a
/// real window.
@Suite(.serialized) struct SheetTests {
    let sandbox: Sandbox
    let desktop: TestDesktop

    init() throws {
        sandbox = try Sandbox()
        desktop = try TestDesktop.shared.get()
        try shortenTheUndoHold(sandbox)
    }

    var environment: [String: String] { desktop.environment(sandbox.environment) }

    /// Starts `mailto-route ARGS` (or the desktop program itself) on the test desktop.
    func start(_ arguments: [String], desktopProgram: Bool = false) throws -> DesktopProgram {
        let binary = desktopProgram ? builtExecutable("mailto-route-desktop") : mailtoRouteBinary
        return try DesktopProgram([binary] + arguments, environment: environment, directory: sandbox.root)
    }

    func screenshot(_ name: String) -> String {
        let directory = packageRoot.appendingPathComponent(".build/sheet-screenshots")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return "shot:" + directory.appendingPathComponent("\(name).png").path
    }

    /// A file in the sandbox, for a link to ask for.
    func file(_ name: String, _ contents: String) throws -> String {
        try sandbox.write(contents, to: "files/\(name)").path
    }

    func outcomes() throws -> [[String: Any]] {
        let log = sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log")
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try jsonObject(String($0)) }
    }

    // MARK: - Send

    /// The whole way: a clicked link (`mailto-route open`) with a display and an account
    /// opens the sheet; the user writes, ticks the file the link asked for, presses Send;
    /// the server gets exactly that, and the sheet closes itself.
    ///
    /// On a German, a Turkish and a Persian desktop (rule 10): the whole environment of the
    /// click, hence of the sheet's program, is in the locale, and GTK takes it for the whole
    /// process (`setlocale(LC_ALL, "")`), LC_TIME included; what arrives has an English
    /// `Date` and no defect, as Python's `email` reads it. A German sheet sent
    /// `Date: So, 06 Dez 2026` before the Date header stopped using strftime.
    @Test(arguments: wireLocales)
    func typedMessageWithTheTickedFileArrivesAndTheSheetCloses(_ locale: String) throws {
        try requireLocale(locale)
        try compileCatalogs()
        let words = SheetWords(locale)
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let report = try file("report.txt", "figures for the quarter\n")
        let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:?attach=\(report)&attach=/nonexistent/secret.key", "--json"],
                                         environment: inLocale(locale, environment), directory: sandbox.root)
        let steps = try desktop.drive([
            words.driverStep, "wait-sheet", "type:\(words.to):Joe Bloggs <joe@example.com>", "type:\(words.subject):Quarterly figures",
            "type:\(words.message):Hi Joe,\nthe figures are attached.", "tick:\(report)",
            "state:/nonexistent/secret.key", screenshot("send-typed-\(locale)"), "press:\(words.send)", "wait-gone",
        ], watching: program)
        let missing = try #require(steps.first { $0["step"] as? String == "state" })
        #expect(missing["enabled"] as? Bool == false, "a path that does not exist cannot be ticked")
        let result = program.finish()
        #expect(result.status == 0, "\(result)")
        let json = try jsonObject(result.stdout)
        #expect(json["result"] as? String == "sent")
        #expect(json["path"] as? String == "direct")
        let message = try #require(server.messages.first)
        #expect(server.messages.count == 1)
        let view = try pythonView(of: message)
        #expect(wireProblems(in: view) == [], "\(locale)")
        #expect(view["date"] is String, "\(locale): \(view["headers"] ?? "")")
        let headers = try #require(view["headers"] as? [String: String])
        // The name typed with the address goes out with it.
        #expect(headers["To"] == "Joe Bloggs <joe@example.com>")
        #expect(headers["Subject"] == "Quarterly figures")
        #expect(headers["From"] == "Jane Doe <jane@example.org>")
        let parts = try #require(view["parts"] as? [[String: Any]])
        let body = try #require(parts.first { $0["type"] as? String == "text/plain" && $0["filename"] is NSNull })
        // Python's reading of a text part ends it with a line break of its own.
        let text = (body["text"] as? String)?.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(text == "Hi Joe,\nthe figures are attached.\n" || text == "Hi Joe,\nthe figures are attached.", "\(body)")
        let attached = parts.filter { $0["disposition"] as? String == "attachment" }
        #expect(attached.count == 1)
        #expect(attached.first?["filename"] as? String == "report.txt")
        #expect(attached.first?["sha256"] as? String == sha256(Data("figures for the quarter\n".utf8)))
        #expect(try server.envelope(of: message)["rcpt_tos"] as? [String] == ["joe@example.com"])
        #expect(try outcomes().last?["result"] as? String == "sent")
    }

    /// With a display, an account and policy=ask, check's verdict names the sheet, and a
    /// click opens it: the same plan (Plan.make) on the same facts.
    @Test func checkAndAClickAgreeOnTheSheet() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let check = try run(mailtoRouteBinary, ["check", "--json", "--offline"], environment: environment, timeout: 30)
        let verdict = try jsonObject(check.stdout)["verdict"] as? [String: Any]
        #expect(verdict?["decision"] as? String == "sheetThenDirect", "\(check)")
        // Not registered here: what `mailto-route open` would do is the second sentence.
        let sentence = verdict?["throughMailtoRoute"] as? String ?? verdict?["sentence"] as? String
        #expect(sentence?.hasPrefix("would open the compose sheet") == true, "\(check)")
        let program = try start(["open", "mailto:joe@example.com?subject=Agreed", "--json"])
        _ = try desktop.drive(["wait-sheet", "press:Cancel", "wait-gone"])
        let result = program.finish()
        #expect(result.status == 4, "\(result)")
        #expect(server.messages.isEmpty)
    }

    /// `xdg-email --attach` (Debian's real xdg-utils, its hook first in PATH)
    /// reaches the sheet with the file ticked, and Send sends it without another click.
    @Test func xdgEmailAttachReachesTheSheetTicked() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        try sandbox.installXDGEmailHook()
        let report = try file("report.txt", "figures for the quarter\n")
        let program = try DesktopProgram(
            ["/usr/bin/xdg-email", "--subject", "Figures", "--attach", report, "joe@example.com"],
            environment: desktop.environment(sandbox.environment()), directory: sandbox.root)
        let steps = try desktop.drive([
            "wait-sheet", "state:report.txt", screenshot("xdg-email-attach"), "press:Send", "wait-gone",
        ])
        let row = try #require(steps.first { $0["step"] as? String == "state" })
        #expect(row["checked"] as? Bool == true, "\(row)")
        let result = program.finish()
        #expect(result.status == 0, "\(result)")
        let message = try #require(server.messages.first)
        let parts = try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
        let attached = parts.filter { $0["disposition"] as? String == "attachment" }
        #expect(attached.map { $0["filename"] as? String } == ["report.txt"])
        #expect(attached.first?["sha256"] as? String == sha256(Data("figures for the quarter\n".utf8)))
    }

    /// The server cannot be reached: the message is queued (75) and the sheet closes.
    @Test func serverDownQueuesTheMessageAndTheSheetCloses() throws {
        let server = try SMTPTestServer(.plain)
        let port = server.port
        server.stop()
        try writeAccount(sandbox, port: port, security: "none")
        let program = try start(["open", "mailto:joe@example.com?subject=Later&body=x", "--json"])
        _ = try desktop.drive(["wait-sheet", "press:Send", "wait-gone"], timeout: 30)
        let result = program.finish()
        #expect(result.status == 75, "\(result)")
        let json = try jsonObject(result.stdout)
        #expect(json["result"] as? String == "queued")
        let outbox = sandbox.stateHome.appendingPathComponent("mailto-route/outbox")
        let queued = try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { !$0.hasPrefix(".") && $0 != "failed" }
        #expect(queued.count == 1)
    }

    /// Add… opens the file chooser (GTK's own here: no portal on the test bus), and so does
    /// its accelerator, Ctrl+Shift+A (`win.attach`); a file chosen is attached ticked;
    /// Remove takes one off again.
    @Test func filesAddedWithTheChooserAreSentAndARemovedOneIsNot() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let kept = try file("kept.txt", "keep me\n")
        let dropped = try file("dropped.txt", "not me\n")
        let program = try start(["open", "mailto:joe@example.com?subject=Files", "--json"])
        _ = try desktop.drive([
            "wait-sheet", "press:Add Attachments", "wait-window:Attach Files", "location:\(kept)",
            "state:kept.txt", "key:ctrl+shift+a", "wait-window:Attach Files", "location:\(dropped)",
            "state:dropped.txt", screenshot("attachments-added"), "press:Remove dropped.txt", "press:Send", "wait-gone",
        // Each step may take 30 s, not 15: GTK's file chooser, twice, lists its folders and
        // builds its accessibility tree while a loaded full run's other tests hold both cores.
        ], timeout: 30, watching: program)
        let result = program.finish()
        #expect(result.status == 0, "\(result)")
        let message = try #require(server.messages.first)
        let parts = try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
        let attached = parts.filter { $0["disposition"] as? String == "attachment" }
        #expect(attached.map { $0["filename"] as? String } == ["kept.txt"])
        #expect(attached.first?["sha256"] as? String == sha256(Data("keep me\n".utf8)))
    }

    /// A file dragged from another program's window (as from a file manager: a GTK 4 drag
    /// source, XDND through the X server, a real pointer drag) and dropped on the sheet is
    /// attached ticked, the user's own hand, and Send sends it.
    @Test func fileDroppedOnTheSheetIsAttachedTickedAndSent() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let dropped = try file("dropped.txt", "dragged onto the sheet\n")
        let program = try start(["open", "mailto:joe@example.com?subject=Dropped", "--json"])
        let steps = try desktop.drive([
            "wait-sheet", "drop:Attachments:\(dropped)", "state:dropped.txt", screenshot("file-dropped"),
            "press:Send", "wait-gone",
        ])
        let row = try #require(steps.first { $0["step"] as? String == "state" })
        #expect(row["checked"] as? Bool == true, "\(row)")
        let result = program.finish()
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "sent")
        let message = try #require(server.messages.first)
        #expect(server.messages.count == 1)
        let parts = try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
        let attached = parts.filter { $0["disposition"] as? String == "attachment" }
        #expect(attached.map { $0["filename"] as? String } == ["dropped.txt"])
        #expect(attached.first?["sha256"] as? String == sha256(Data("dragged onto the sheet\n".utf8)))
    }

    /// "Open in NAME" hands what the sheet holds now to the mail program, through the
    /// existing handoff.
    @Test func openInTheMailProgramHandsOffWhatTheSheetHolds() throws {
        try sandbox.installHandler("recorder.desktop", name: "Recorder", program: "recorder")
        try sandbox.setDefaultMailHandler("recorder.desktop")
        try writeAccount(sandbox, port: 9, security: "none")
        let program = try start(["open", "mailto:joe@example.com", "--json"])
        // An account and a mail program: the first click asks once; the account, this once.
        _ = try desktop.drive([
            "wait-chooser", "pick:Send from Jane Doe <jane@example.org>", "press:Just this once",
            "wait-sheet", "type:Subject:Over to you", screenshot("open-in-mail-program"), "menu:Open in Recorder", "wait-gone",
        ])
        let result = program.finish()
        #expect(result.status == 0, "\(result)")
        let json = try jsonObject(result.stdout)
        #expect(json["result"] as? String == "handedOff")
        let argv = try #require(sandbox.recordedArgv("recorder"))
        #expect(argv == ["mailto:joe@example.com?subject=Over%20to%20you"])
    }

    // MARK: - Save Draft

    /// Save Draft through the real programs: the draft on disk and the report (3, "saved").
    /// Cancel, its question and what Save and Discard hand over are SheetActionTests'.
    @Test func saveDraftSavesWhatTheSheetHolds() throws {
        try writeAccount(sandbox, port: 9, security: "none")
        let program = try start(["open", "mailto:joe@example.com?subject=Draft%20me", "--json"])
        _ = try desktop.drive(["wait-sheet", "press:Add Cc", "type:Cc:ann@example.com", screenshot("save-draft"), "menu:Save Draft", "wait-gone"])
        let result = program.finish()
        #expect(result.status == 3, "\(result)")
        let json = try jsonObject(result.stdout)
        #expect(json["result"] as? String == "saved")
        let draft = try #require(sandbox.drafts.first)
        #expect(json["draft"] as? String == draft.path)
        #expect(try sandbox.header("Cc", of: draft) == "ann@example.com")
        #expect(try sandbox.header("Subject", of: draft) == "Draft me")
    }

    // MARK: - Checks while writing, keyboard, names

    /// The GNOME layout: Cancel and Send in the header bar at the top, Save Draft in its
    /// menu, Cc and Bcc folded behind their buttons beside To (a link gives none); Tab goes
    /// To → Cc → Bcc (the buttons) → Subject → Message; every control has the name a screen
    /// reader speaks; Ctrl+? shows the keyboard shortcuts.
    @Test func headerBarFoldedFieldsTabOrderAndAccessibleNames() throws {
        let program = try start(["compose"], desktopProgram: true)
        let steps = try desktop.drive([
            "wait-sheet", "names", "state:Send", "state:Cancel", "state:To", screenshot("layout"), "focused", "key:Tab", "focused",
            "key:Tab", "focused", "key:Tab", "focused", "key:Tab", "focused", "key:ctrl+shift+slash", "wait-window:Keyboard Shortcuts",
            screenshot("shortcuts"), "key:Escape", "press:Cancel", "wait-gone",
        ])
        let names = try #require(steps.first { $0["step"] as? String == "names" }?["names"] as? [String])
        for expected in ["text: To", "push button: Add Cc", "push button: Add Bcc", "text: Subject", "text: Message",
                         "list: Attachments", "push button: Send", "push button: Cancel", "push button: Main Menu"] {
            #expect(names.contains(expected), "\(expected) in \(names)")
        }
        #expect(!names.contains("text: Cc") && !names.contains("text: Bcc"), "folded: \(names)")
        let states = steps.filter { $0["step"] as? String == "state" }
        let top = try #require(states.last?["y"] as? Int)
        for button in states.dropLast() {
            #expect((button["y"] as? Int ?? .max) < top, "\(button) above To: in the header bar")
        }
        let order = steps.filter { $0["step"] as? String == "focused" }.map { $0["name"] as? String }
        #expect(order == ["To", "Add Cc", "Add Bcc", "Subject", "Message"])
        #expect(program.finish().status == 4)
    }

    /// What a screen reader may ask while windows come and go: the sheet's application's
    /// window at an index past the last (GetChildAtIndex). GTK 4.8 answers with its last
    /// toplevel window, and when that was one made but never shown (the setup's, made with
    /// its offer; the shortcuts'), or one hidden a moment before it was destroyed (the
    /// setup's, as it closed), the sheet crashed, the message in it. Asked with the offer
    /// shown, the shortcuts shown and closed, the setup's window open and closed, and in a
    /// flood while the setup's Cancel is pressed (which crashed the old code at once): the
    /// sheet is still there each time, and its Cancel ends it.
    @Test func aScreenReaderAskingPastTheLastWindowNeverCrashesTheSheet() throws {
        let program = try start(["compose", "mailto:joe@example.org?subject=Still%20here"])
        let probe = "past-the-end:mailto-route-desktop"
        let steps = try desktop.drive([
            "wait-sheet", "wait-label:No mail account is set up", probe,
            "key:ctrl+shift+slash", "wait-window:Keyboard Shortcuts", probe, "key:Escape", probe,
            "press:Set Up Sending…", "wait-window:Set Up Sending", probe, "press-in:Set Up Sending:Cancel", probe,
            // Asked while the setup's window goes, before the sheet's main loop is idle.
            "press:Set Up Sending…", "wait-window:Set Up Sending", "press-past-the-end:Set Up Sending:Cancel:mailto-route-desktop",
            probe, "wait-sheet", "press:Cancel", "wait-gone",
        ], watching: program)
        let probes = steps.filter { $0["step"] as? String == "past-the-end" }
        #expect(probes.count == 6, "\(steps)")
        let asked = try #require(steps.first { $0["step"] as? String == "press-past-the-end" }, "\(steps)")
        #expect((asked["answers"] as? [String])?.count == 3, "\(asked)")
        for answer in probes {
            #expect((answer["windows"] as? Int ?? 0) >= 1, "\(answer)")
        }
        let result = program.finish()
        #expect(result.status == 4, "cancelled, not crashed: \(result)")
    }

    /// Under `de_DE.UTF-8` the sheet is German, as GNOME's German team writes it: the window
    /// is "Neue Nachricht", the header bar's buttons are "Senden" and "Abbrechen", the fields
    /// "An" and "Betreff"; Abbrechen after an edit asks "Diese Nachricht als Entwurf
    /// speichern?", and Verwerfen cancels. The catalog is the tree's own
    /// (`.build/locale`, from po/de.po), found beside the built program.
    @Test func underGermanTheButtonsAreSendenAndAbbrechen() throws {
        try compileCatalogs()
        try writeAccount(sandbox, port: 9, security: "none")
        let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com", "--json"],
                                         environment: inLocale("de_DE.UTF-8", environment), directory: sandbox.root)
        let steps = try desktop.drive([
            "sheet-words:Neue Nachricht:Nachricht an :Senden", "wait-sheet", "names", "state:Senden", "state:Abbrechen", "state:An",
            screenshot("german"), "type:Betreff:Hallo", "press:Abbrechen", "wait-window:Diese Nachricht als Entwurf speichern?",
            screenshot("german-save-question"), "press:Verwerfen", "wait-gone",
        ])
        #expect(steps.first { $0["step"] as? String == "wait-sheet" }?["title"] as? String == "Nachricht an joe@example.com")
        let names = try #require(steps.first { $0["step"] as? String == "names" }?["names"] as? [String])
        for expected in ["push button: Senden", "push button: Abbrechen", "text: An", "text: Betreff", "text: Nachricht"] {
            #expect(names.contains(expected), "\(expected) in \(names)")
        }
        #expect(!names.contains("push button: Send") && !names.contains("push button: Cancel"), "\(names)")
        // In the header bar, above the first field.
        let states = steps.filter { $0["step"] as? String == "state" }
        let top = try #require(states.last?["y"] as? Int)
        #expect(states.count == 3 && states.dropLast().allSatisfy { ($0["y"] as? Int ?? .max) < top }, "\(states)")
        let result = program.finish()
        #expect(result.status == 4, "\(result)")
        // JSON is for programs: its words stay as documented, whatever the language.
        #expect(try jsonObject(result.stdout)["result"] as? String == "cancelled")
    }

    /// Misspelt words are underlined as one types (the language from the locale); a right
    /// click offers what to put instead, and the language can be changed in the sheet.
    @Test func misspeltWordsAreMarkedAndCanBeCorrected() throws {
        try writeAccount(sandbox, port: 9, security: "none")
        var environment = self.environment
        environment["LANG"] = "en_US.UTF-8"
        let program = try DesktopProgram(
            [mailtoRouteBinary, "open", "mailto:joe@example.com?body=Teh%20quick%20fox%20jumsp.%0D%0A%3E%20wrng", "--json"],
            environment: environment, directory: sandbox.root)
        let steps = try desktop.drive([
            "wait-sheet", "wait-underlined:Message:Teh,jumsp", screenshot("spelling"), "right-click:Message:Teh",
            screenshot("spelling-menu"), "choose:The", "wait-underlined:Message:jumsp,-Teh", "right-click:Message:quick",
            "choose:Spelling Language", "choose:de_DE", "wait-underlined:Message:quick", "press:Cancel",
            "wait-window:Save this message as a draft?", "press:Discard", "wait-gone",
        ])
        let underlined = steps.filter { $0["step"] as? String == "underlined" }.map { $0["words"] as? [String] ?? [] }
        #expect(underlined.count == 3)
        // The quoted line is the other person's spelling.
        #expect(underlined.first == ["Teh", "jumsp"])
        #expect(underlined.dropFirst().first == ["jumsp"])
        #expect(underlined.last?.contains("quick") == true, "German marks English words: \(underlined)")
        #expect(program.finish().status == 4)
    }

    /// After one message to Asa Berg (sent with `send`, from the command line: every sending
    /// path is remembered), typing "As" in To offers "Asa Berg <asa@example.org>", Down and
    /// Return take it; a row of the history can be forgotten.
    @Test func anAddressSentToBeforeIsOfferedAsOneTypes() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let sent = try run(mailtoRouteBinary, ["send", "--to", "Asa Berg <asa@example.org>", "--subject", "Hi", "--body", "x"],
                           environment: sandbox.environment)
        #expect(sent.status == 0, "\(sent)")
        let program = try start(["open", "mailto:?subject=Again", "--json"])
        let steps = try desktop.drive([
            "wait-sheet", "type:To:As", "state:Asa Berg <asa@example.org>", screenshot("completion"), "key:Down", "key:Return",
            "state:To", "press:Add Cc", "type:Cc:asa", "press:Forget asa@example.org",
            "wait-no:Asa Berg <asa@example.org>", "names", "press:Cancel",
            "wait-window:Save this message as a draft?", "press:Discard", "wait-gone",
        ])
        let states = steps.filter { $0["step"] as? String == "state" }
        #expect(states.first?["role"] as? String == "list item", "\(states)")
        #expect(states.last?["text"] as? String == "Asa Berg <asa@example.org>, ")
        let names = try #require(steps.first { $0["step"] as? String == "names" }?["names"] as? [String])
        #expect(!names.contains("list item: Asa Berg <asa@example.org>"), "forgotten: \(names)")
        let history = (try? String(contentsOf: sandbox.stateHome.appendingPathComponent("mailto-route/recipients"), encoding: .utf8)) ?? ""
        #expect(!history.contains("asa@example.org"), "\(history)")
        #expect(program.finish().status == 4)
    }

    /// Issue 21 item 4: the address books Evolution Data Server marks for autocompletion
    /// (Debian's real evolution-data-server on a bus of its own, seeded through libebook)
    /// complete To as one types, with the contact's name. The GTK process itself never loads
    /// libebook, also once the books have answered: mailto-route-books does, started at the
    /// first keystroke (the loader's log, LD_DEBUG=files, names each library loaded).
    @Test func aContactFromTheDesktopsAddressBooksIsOfferedAsOneTypes() throws {
        let eds = try EvolutionDataServer()
        try eds.seed([.init("Personal", contacts: [.init("Asa Berg", ["asa@example.org"])])])
        try writeAccount(sandbox, port: 9, security: "none")
        var environment = self.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = eds.bus.address
        environment["AT_SPI_BUS_ADDRESS"] = desktop.accessibilityBusAddress
        environment["LD_DEBUG"] = "files"
        let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:?subject=Books", "--json"],
                                         environment: environment, directory: sandbox.root)
        let steps = try desktop.drive([
            "wait-sheet", "type:To:As", "state:Asa Berg <asa@example.org>", screenshot("completion-address-book"),
            "key:Down", "key:Return", "state:To", "press:Cancel",
            "wait-window:Save this message as a draft?", "press:Discard", "wait-gone",
        ])
        let states = steps.filter { $0["step"] as? String == "state" }
        #expect(states.first?["role"] as? String == "list item", "\(states)")
        #expect(states.last?["text"] as? String == "Asa Berg <asa@example.org>, ")
        let finished = program.finish()
        #expect(finished.status == 4, "\(finished.stdout)")
        // "  1234:\tfile=libgtk-4.so.1 [0];  needed by ...": the processes that loaded each.
        func loaders(_ library: String) -> Set<Substring> {
            Set(finished.stderr.split(separator: "\n").filter { $0.contains("file=\(library)") }.compactMap {
                $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces)[...]
            })
        }
        // The helper's own standard error goes to /dev/null: libebook in this log is the
        // sheet's process (or the command line's) loading it.
        #expect(!loaders("libgtk-4").isEmpty, "the loader's log is missing: \(finished.stderr.suffix(2000))")
        #expect(loaders("libebook-1.2").isEmpty)
    }

    /// Without Evolution Data Server (a session bus that can start nothing) the completion
    /// offers the history alone, and says nothing about the books: no row, no notice, no
    /// warning in the report.
    @Test func withoutEvolutionDataServerTheHistoryAloneIsOffered() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let sent = try run(mailtoRouteBinary, ["send", "--to", "Asa Berg <asa@example.org>", "--subject", "Hi", "--body", "x"],
                           environment: sandbox.environment)
        #expect(sent.status == 0, "\(sent)")
        let bus = try PrivateSessionBus()
        var environment = self.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["AT_SPI_BUS_ADDRESS"] = desktop.accessibilityBusAddress
        let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:?subject=No%20books", "--json"],
                                         environment: environment, directory: sandbox.root)
        let steps = try desktop.drive([
            "wait-sheet", "type:To:As", "state:Asa Berg <asa@example.org>", "names",
            screenshot("completion-history-only"), "key:Escape", "press:Cancel",
            "wait-window:Save this message as a draft?", "press:Discard", "wait-gone",
        ])
        let names = try #require(steps.first { $0["step"] as? String == "names" }?["names"] as? [String])
        #expect(names.filter { $0.hasPrefix("list item: ") } == ["list item: Asa Berg <asa@example.org>"], "\(names)")
        let finished = program.finish()
        #expect(finished.status == 4, "\(finished)")
        let report = try jsonObject(finished.stdout)
        #expect((report["warnings"] as? [String] ?? []).isEmpty, "\(report)")
    }

    // MARK: - Nothing lost

    /// A sheet killed with SIGKILL leaves a recovery file (0600, at most a few seconds
    /// old); the next `compose` offers that message again (again after a second kill,
    /// with nothing typed in between), and it can be saved.
    @Test func sheetKilledIsOfferedAgainOnTheNextStart() throws {
        let first = try start(["compose"], desktopProgram: true)
        _ = try desktop.drive(["wait-sheet", "type:To:joe@example.com", "type:Subject:Typed before the crash"])
        let directory = sandbox.stateHome.appendingPathComponent("mailto-route/recovery")
        func recoveryFiles() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".recovery") }
        }
        // Kept a moment after the typing (the sheet writes its recovery file when typing pauses).
        try waitUntil("the sheet keeps what was typed in its recovery file") {
            recoveryFiles().contains { (try? String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8))?
                .contains("Typed%20before%20the%20crash") == true }
        }
        let files = recoveryFiles()
        #expect(files.count == 1)
        let recovery = directory.appendingPathComponent(try #require(files.first))
        let attributes = try FileManager.default.attributesOfItem(atPath: recovery.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOf: recovery, encoding: .utf8).contains("Typed%20before%20the%20crash"))
        first.kill9()

        // Shown again, and killed again before anything was typed in it: still not lost.
        let second = try start(["compose"], desktopProgram: true)
        _ = try desktop.drive(["wait-sheet", "wait-label:This is the message you were writing"])
        second.kill9()
        let third = try start(["compose"], desktopProgram: true)
        _ = try desktop.drive([
            "wait-sheet", "wait-label:This is the message you were writing", screenshot("recovered"), "key:ctrl+s",
            "wait-gone",
        ])
        let result = third.finish()
        #expect(result.status == 3, "\(result)")
        let draft = try #require(sandbox.drafts.first)
        #expect(try sandbox.header("Subject", of: draft) == "Typed before the crash")
        #expect(try sandbox.header("To", of: draft) == "joe@example.com")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left.isEmpty, "the recovery file goes when the sheet ends: \(left)")
    }

    /// `compose` with a display and no terminal opens the sheet (here: cancelled); with
    /// `--editor` it insists on the editor, which needs a terminal (64).
    @Test func composeWithoutATerminalOpensTheSheetUnlessTheEditorIsAskedFor() throws {
        let program = try start(["compose", "mailto:joe@example.com?subject=From%20a%20launcher", "--json"])
        _ = try desktop.drive(["wait-sheet", "press:Cancel", "wait-gone"])
        let result = program.finish()
        #expect(result.status == 4, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "cancelled")
        let editor = try run(mailtoRouteBinary, ["compose", "--editor"], environment: environment)
        #expect(editor.status == 64, "\(editor)")
        #expect(editor.stderr.contains("compose needs a terminal"))
    }

    // MARK: - Where the sheet does not open

    /// GTK cannot start (no display it can open): the desktop program says so with its
    /// own status, and `open` takes today's path (no consent can be asked: saved).
    @Test func withoutAWorkingDisplayTodaysPathRuns() throws {
        try writeAccount(sandbox, port: 9, security: "none")
        var environment = sandbox.environment
        environment["DISPLAY"] = ":9999"
        let desktopRun = try run(builtExecutable("mailto-route-desktop"), ["open", "mailto:joe@example.com"], environment: environment)
        #expect(desktopRun.status == 69, "\(desktopRun)")
        #expect(desktopRun.stderr.contains("cannot start GTK"))
        let cli = try run(mailtoRouteBinary, ["open", "mailto:joe@example.com", "--json"], environment: environment)
        #expect(cli.status == 3, "\(cli)")
        #expect(try jsonObject(cli.stdout)["result"] as? String == "saved")
    }

    /// docs/design.md, Performance: with a display, the handoff path (no account) and a send
    /// never load GTK; the loader's own log (LD_DEBUG=files) names every library loaded.
    @Test func handoffAndSendPathsNeverLoadGTK() throws {
        let server = try SMTPTestServer(.plain)
        var environment = desktop.environment(sandbox.environment)
        environment["LD_DEBUG"] = "files"
        // policy=handoff: no chooser (its window is the desktop program's, which loads GTK).
        try sandbox.write("[route]\npolicy=handoff\n", to: "home/.config/mailto-route/config")
        let handoff = try run(mailtoRouteBinary, ["open", "mailto:joe@example.com"], environment: environment)
        #expect(handoff.stderr.contains("file=libglib-2.0.so.0"), "the loader's log is missing: \(handoff)")
        #expect(!handoff.stderr.contains("libgtk-4"))
        try writeAccount(sandbox, port: server.port, security: "none")
        let send = try run(mailtoRouteBinary, ["send", "--to", "joe@example.com", "--body", "x"], environment: environment)
        #expect(send.status == 0, "\(send)")
        #expect(send.stderr.contains("file=libcurl.so.4"), "the loader's log is missing")
        #expect(!send.stderr.contains("libgtk-4"))
        // Nor the address books' library, which only mailto-route-books loads.
        #expect(!handoff.stderr.contains("libebook") && !send.stderr.contains("libebook"))
    }
}
