import Foundation
import MailtoCore
import Testing
import TestSupport
@testable import ComposeSheet

/// The sheet's behaviour through its actions, in this process (SheetHarness, after Geary's
/// composer tests): the sheet built with a host that records what it is asked, its fields
/// filled and its window actions activated as its buttons, menu items and keys do, what it
/// shows and what it hands its host asserted. What reaches a server, the desktop program's
/// exit status and the draft on disk are SheetTests' (the real programs on a desktop).
@Suite(.serialized) struct SheetActionTests {
    let harness: SheetHarness

    init() throws {
        harness = try SheetHarness.shared.get()
    }

    func open(_ email: EmailData, host: RecordingHost = RecordingHost()) -> SheetUnderTest {
        harness.open(SheetContent(from: "Jane Doe <jane@example.org>", email: email), host: host)
    }

    // MARK: - Cancel and Save Draft

    /// Cancel with nothing edited ends the sheet as cancelled, asking nothing.
    @Test func cancelWithNothingEditedIsCancelled() throws {
        let sheet = open(EmailData(to: ["joe@example.com"], subject: "Hi"))
        sheet.activate("cancel")
        try sheet.waitUntilEnded()
        #expect(sheet.host.events == [.cancelled, .closed, .ended])
    }

    /// With edits, Cancel asks "Save this message as a draft?"; Discard ends it cancelled,
    /// nothing saved.
    @Test func cancelWithEditsAsksAndDiscardSavesNothing() throws {
        let sheet = open(EmailData(to: ["joe@example.com"]))
        sheet.type("Second thoughts", into: .subject)
        sheet.activate("cancel")
        #expect(sheet.question == "Save this message as a draft?")
        #expect(!sheet.hasEnded)
        try sheet.answer("discard")
        try sheet.waitUntilEnded()
        #expect(sheet.host.events == [.cancelled, .closed, .ended])
    }

    /// Escape (the cancel action) with edits asks; Keep Editing goes back to the sheet, which
    /// keeps what was written and takes more; asked again, Save hands the whole message over
    /// as a draft.
    @Test func escapeWithEditsThenSaveKeepsADraft() throws {
        let sheet = open(EmailData(to: ["joe@example.com"]))
        sheet.type("Worth keeping", into: .subject)
        sheet.activate("cancel")
        try sheet.answer("keep")
        #expect(sheet.question == nil)
        try sheet.append(toMessage: "more")
        sheet.activate("cancel")
        #expect(sheet.question == "Save this message as a draft?")
        try sheet.answer("save")
        try sheet.waitUntilEnded()
        #expect(sheet.host.events == [.performed(.saveDraft), .closed, .ended])
        let saved = try #require(sheet.host.messages.first)
        #expect(saved.subject == "Worth keeping")
        #expect(saved.body == "more")
        #expect(saved.to == ["joe@example.com"])
    }

    /// Save Draft hands over what the sheet holds, a Cc added in it included.
    @Test func saveDraftHandsOverACcAddedInTheSheet() throws {
        let sheet = open(EmailData(to: ["joe@example.com"], subject: "Draft me"))
        #expect(!sheet.isShown(.cc), "Cc is folded while the link gives none")
        sheet.activate("show-cc")
        #expect(sheet.isShown(.cc))
        sheet.type("ann@example.com", into: .cc)
        sheet.activate("save-draft")
        try sheet.waitUntilEnded()
        #expect(sheet.host.events == [.performed(.saveDraft), .closed, .ended])
        let saved = try #require(sheet.host.messages.first)
        #expect(saved.cc == ["ann@example.com"])
        #expect(saved.subject == "Draft me")
    }

    // MARK: - Sending

    /// A permanent failure keeps the sheet open, the reason in it, the text as it was and
    /// Send possible again; then Save Draft hands over what was written.
    @Test func permanentFailureKeepsTheSheetOpenThenSaveDraftKeepsTheText() throws {
        let host = RecordingHost { action in action == .send ? .failed("554 5.7.1 Message refused by policy") : .finished }
        let sheet = open(EmailData(to: ["joe@example.com"]), host: host)
        sheet.type("Refused once", into: .subject)
        try sheet.append(toMessage: "Keep this text")
        sheet.activate("send")
        try waitUntil("the failure is shown") { sheet.shown(.errorLabel) != nil }
        #expect(sheet.shown(.errorLabel) == "Not sent: 554 5.7.1 Message refused by policy")
        #expect(sheet.isEnabled("send"), "Send again is possible")
        #expect(!sheet.hasEnded)
        #expect(sheet.text(of: .subject) == "Refused once")
        sheet.activate("save-draft")
        try sheet.waitUntilEnded()
        #expect(host.events == [.willSend, .performed(.send), .performed(.saveDraft), .closed, .ended])
        #expect(host.messages.map(\.subject) == ["Refused once", "Refused once"])
        #expect(host.messages.last?.body == "Keep this text")
    }

    /// A 10 MB message (a recovered one: a link cannot carry that much) is in the sheet, and
    /// the sheet takes what is typed at its end and in Subject, and saves it whole. How fast
    /// is `make bench`'s (the sheet section), not this test's.
    @Test func aTenMegabyteMessageTakesWhatIsTypedAndIsSavedWhole() throws {
        let line = String(repeating: "All work and no play makes Jack a dull boy. ", count: 2) + "\n"
        let body = String(repeating: line, count: 10_000_000 / line.utf8.count + 1)
        let sheet = open(EmailData(to: ["joe@example.com"], subject: "Long", body: body))
        try sheet.append(toMessage: "The end.")
        sheet.type("Long, and saved", into: .subject)
        sheet.activate("save-draft")
        try sheet.waitUntilEnded()
        #expect(sheet.host.events == [.performed(.saveDraft), .closed, .ended])
        let saved = try #require(sheet.host.messages.first)
        #expect(saved.subject == "Long, and saved")
        let text = saved.body ?? ""
        #expect(text.utf8.count > 10_000_000)
        #expect(text.hasPrefix("All work and no play"))
        #expect(text.hasSuffix("The end."), "\(text.suffix(80))")
    }

    // MARK: - Stop

    /// Cancel while "Sending…" shows is the Send's Stop: the host is asked, the sheet says
    /// it is stopping and takes no second Cancel; when the send comes back stopped, the
    /// sheet and its text are the person's again, and it says nothing was sent.
    @Test func cancelWhileSendingStopsItAndGivesTheSheetBack() throws {
        let sending = DispatchSemaphore(value: 0)
        let answer = DispatchSemaphore(value: 0)
        let host = RecordingHost { action in
            guard action == .send else { return .finished }
            sending.signal()
            answer.wait()
            return .failed("you stopped it before the mail server had it")
        }
        let sheet = open(EmailData(to: ["joe@example.com"], subject: "Wait"), host: host)
        try sheet.append(toMessage: "Keep this text")
        sheet.activate("send")
        #expect(sending.wait(timeout: .now() + patience) == .success)
        #expect(sheet.shown(.statusLabel) == "Sending…")
        #expect(sheet.isEnabled("cancel"), "Cancel is the Stop while it sends")
        sheet.activate("cancel")
        #expect(sheet.shown(.statusLabel) == "Stopping…")
        #expect(!sheet.isEnabled("cancel"))
        answer.signal()
        try waitUntil("the outcome is shown") { sheet.shown(.errorLabel) != nil }
        #expect(sheet.shown(.errorLabel) == "Not sent: you stopped it before the mail server had it")
        #expect(!sheet.hasEnded)
        #expect(sheet.isEnabled("send") && sheet.isEnabled("cancel"))
        #expect(sheet.isMessageEditable)
        #expect(sheet.text(of: .subject) == "Wait")
        #expect(host.events == [.willSend, .performed(.send), .stop])
    }

    /// Once the server may have the message, the Stop is refused: the sheet says it is too
    /// late and waits for the outcome, which then stands.
    @Test func cancelTooLateWaitsForTheOutcome() throws {
        let sending = DispatchSemaphore(value: 0)
        let answer = DispatchSemaphore(value: 0)
        let host = RecordingHost(stopsInTime: false) { action in
            guard action == .send else { return .finished }
            sending.signal()
            answer.wait()
            return .finished
        }
        let sheet = open(EmailData(to: ["joe@example.com"], subject: "Gone"), host: host)
        sheet.activate("send")
        #expect(sending.wait(timeout: .now() + patience) == .success)
        sheet.activate("cancel")
        #expect(sheet.shown(.statusLabel) == "Too late to stop: the mail server has the message")
        answer.signal()
        try sheet.waitUntilEnded()
        #expect(host.events == [.willSend, .performed(.send), .stop, .closed, .ended])
    }

    /// RFC 6068 §7, docs/design.md rule 8: a file the link asked for is listed unticked; Send
    /// asks "Send without id_rsa?" first, and Send Without It hands over a message without
    /// it, the file still only requested.
    @Test func untickedRequestedFileIsNeverAttached() throws {
        let sandbox = try Sandbox()
        let secret = try sandbox.write("-----BEGIN OPENSSH PRIVATE KEY-----\n", to: "files/id_rsa").path
        let sheet = open(EmailData(to: ["joe@example.com"], subject: "Hello", body: "Hi", requestedAttachments: [secret]))
        #expect(sheet.isShown(.requestedList))
        sheet.activate("send")
        #expect(sheet.question == "Send without id_rsa?")
        #expect(sheet.host.events.isEmpty, "nothing is sent while it asks")
        try sheet.answer("send")
        try sheet.waitUntilEnded()
        #expect(sheet.host.events == [.willSend, .performed(.send), .closed, .ended])
        let sent = try #require(sheet.host.messages.first)
        #expect(sent.attachments.isEmpty)
        #expect(sent.requestedAttachments == [secret])
    }

    /// "Send without …?" answered Cancel goes back to the sheet: nothing handed over.
    @Test func sendWithoutAnsweredCancelSendsNothing() throws {
        let sandbox = try Sandbox()
        let report = try sandbox.write("figures\n", to: "files/report.txt").path
        let sheet = open(EmailData(to: ["joe@example.com"], requestedAttachments: [report]))
        sheet.activate("send")
        try sheet.answer("cancel")
        #expect(sheet.question == nil)
        #expect(!sheet.hasEnded)
        sheet.activate("cancel")
        try sheet.waitUntilEnded()
        #expect(sheet.host.events == [.cancelled, .closed, .ended])
    }

    // MARK: - Undo send

    /// Send with an Undo time: the message is held, read-only, Undo offered; Undo takes it
    /// back from the host and it is the person's to edit again, in the same sheet. Nothing
    /// is released.
    @Test func undoWithinTheHoldGivesTheMessageBackToEdit() throws {
        let host = RecordingHost { action in action == .send ? .held(seconds: 30) : .finished }
        let sheet = open(EmailData(to: ["joe@example.com"], subject: "Oops"), host: host)
        try sheet.append(toMessage: "Not this one.")
        sheet.activate("send")
        try waitUntil("the Send is held") { sheet.isHeld }
        #expect(!sheet.isMessageEditable, "read-only while held")
        #expect(sheet.isEnabled("undo-send") && !sheet.isEnabled("send"))
        sheet.activate("undo-send")
        #expect(!sheet.isHeld)
        #expect(sheet.isMessageEditable, "back to edit")
        #expect(!sheet.isEnabled("undo-send") && sheet.isEnabled("send"))
        #expect(sheet.message.body == "Not this one.")
        #expect(host.events == [.willSend, .performed(.send), .undo])
        // Taken back, it is the person's writing: Cancel asks before it goes.
        sheet.activate("cancel")
        try sheet.answer("discard")
        try sheet.waitUntilEnded()
        #expect(!host.events.contains(.performed(.releaseHold)))
    }

    /// An Undo that comes too late (the host began sending it) leaves the Send held: the
    /// message is not given back as if unsent.
    @Test func anUndoRefusedLeavesTheSendHeld() throws {
        let host = RecordingHost(undoRefusal: "its sending began") { action in action == .send ? .held(seconds: 30) : .finished }
        let sheet = open(EmailData(to: ["joe@example.com"], subject: "Oops"), host: host)
        sheet.activate("send")
        try waitUntil("the Send is held") { sheet.isHeld }
        sheet.activate("undo-send")
        #expect(sheet.isHeld)
        #expect(!sheet.isMessageEditable)
        #expect(host.events == [.willSend, .performed(.send), .undo])
    }

    /// The hold's toast closed with its ×: no Undo wanted, so the message goes now, not at
    /// the end of the hold, and the sheet closes.
    @Test func dismissingTheToastSendsAtOnce() throws {
        let host = RecordingHost { action in action == .send ? .held(seconds: 60) : .finished }
        let sheet = open(EmailData(to: ["joe@example.com"], subject: "Now", body: "x"), host: host)
        sheet.activate("send")
        try waitUntil("the Send is held") { sheet.isHeld }
        try sheet.dismissTheHoldsToast()
        try sheet.waitUntilEnded()
        #expect(host.events == [.willSend, .performed(.send), .willSend, .performed(.releaseHold), .closed, .ended])
        #expect(host.messages.map(\.subject) == ["Now", "Now"])
    }

    // MARK: - Checks while writing

    /// Each address is checked as it is typed, the reason beside the field; Send only with
    /// a valid recipient. Invisible and bidirectional characters in the subject are shown.
    @Test func addressesAreCheckedAsTypedAndHiddenCharactersShown() throws {
        let sheet = open(EmailData(subject: "invoice\u{202E}fdp.exe"))
        #expect(!sheet.isEnabled("send"), "no recipient")
        let hidden = try #require(sheet.shown(.subjectHidden))
        #expect(hidden.hasPrefix("The subject holds invisible"))
        #expect(hidden.contains("\\u{202E}"), "\(hidden)")
        sheet.type("joe@", into: .to)
        #expect(sheet.addressProblem(0) == "not an address (no local@domain): joe@")
        #expect(!sheet.isEnabled("send"))
        sheet.type("joe@example.com", into: .to)
        #expect(sheet.addressProblem(0) == nil)
        #expect(sheet.isEnabled("send"))
        sheet.type("", into: .subject)
        #expect(sheet.shown(.subjectHidden) == nil)
    }

    /// A link's Cc and Bcc are shown filled, their buttons gone; the title names the
    /// recipient by the name the link gave.
    @Test func aLinksCcAndBccAreShownFilled() throws {
        let sheet = open(EmailData(to: ["ann@example.com"], cc: ["cy@example.com"], bcc: ["bo@example.com"],
                                   names: ["ann@example.com": "Ann Berg"]))
        #expect(sheet.isShown(.cc) && sheet.isShown(.bcc))
        #expect(sheet.text(of: .cc) == "cy@example.com")
        #expect(sheet.text(of: .bcc) == "bo@example.com")
        #expect(!sheet.isShown(.showCc) && !sheet.isShown(.showBcc))
        #expect(sheet.windowTitle == "Message to Ann Berg")
        sheet.activate("cancel")
        try sheet.waitUntilEnded()
    }
}
