import CGTK
import Foundation
import MailtoCore
import MainLoop
import TestSupport
@testable import ComposeSheet

/// GTK in the test process, as Geary's composer tests have it: one GTK main loop on a thread
/// of its own (the default main context: the sheet's worker results come back to it), an
/// application, and sheets built as the desktop program builds them, each with a
/// `RecordingHost`. A test does what a person does through the sheet's own actions and
/// fields, on that thread (`run`), and reads what the sheet shows and what it asked of its
/// host. No accessibility bus, no other process: what only a real window shows (names, focus,
/// the file chooser, a drag, a screen reader) stays in SheetTests.
///
/// Its own display (TestDisplay), so that its windows never take the keyboard of another
/// test's desktop. The environment GTK reads lazily (the renderer, accessibility, settings)
/// is set in this process; `scripts/test` runs these tests in a process of their own.
final class SheetHarness: @unchecked Sendable {
    static let shared = started("GTK") { try SheetHarness() }

    /// Made on the loop's thread before `init` returns (`run` waits for it).
    private let application: UnsafeMutablePointer<GtkApplication>

    private init() throws {
        let display = try TestDisplay.shared.get()
        // Cairo and no GL (TestDesktop says why), no accessibility bus, settings in memory.
        for (name, value) in ["GSK_RENDERER": "cairo", "GDK_DEBUG": "gl-disable", "GTK_A11Y": "none",
                              "GSETTINGS_BACKEND": "memory", "GSETTINGS_SCHEMA_DIR": "/usr/share/glib-2.0/schemas"] {
            setenv(name, value, 1)
        }
        // GTK starts on the thread that turns the main context: the actor's, as in the program.
        let made = MainLoopThread.shared.run { () -> Result<UncheckedApplication, TestSupportError> in
            // The display is named for gtk_init only: nothing else in this process (a
            // program a test starts) is to find it.
            setenv("DISPLAY", display.display, 1)
            let initialised = gtk_init_check() != 0
            unsetenv("DISPLAY")
            guard initialised else { return .failure(TestSupportError("gtk_init_check failed on \(display.display)")) }
            // No application id: a plain non-unique application, on no bus.
            let made = gtk_application_new(nil, G_APPLICATION_NON_UNIQUE)
            var error: UnsafeMutablePointer<GError>?
            if g_application_register(mr_application(made), nil, &error) == 0 {
                return .failure(TestSupportError("g_application_register: " + (error.map { String(cString: $0.pointee.message) } ?? "")))
            }
            // Kept from closing when its last window goes: the next test opens another.
            g_application_hold(mr_application(made))
            return .success(UncheckedApplication(pointer: made!))
        }
        application = try made.get().pointer
    }

    /// Runs `body` on the GTK thread (the main loop's actor), between two turns of its main
    /// loop, and returns what it returned: the only way a test touches a sheet.
    func run<Value>(_ body: @escaping @Sendable @GLibMainActor () -> Value) -> Value {
        MainLoopThread.shared.run(body)
    }

    /// Opens a sheet showing `content`, its host `host`, as the desktop program presents one.
    func open(_ content: SheetContent, host: RecordingHost) -> SheetUnderTest {
        run { [self] in
            let sheet = ComposeSheet(application: application, content: content, host: host, recovery: nil,
                                     ended: { _, _ in host.ended() })
            sheet.present()
            return SheetUnderTest(harness: self, sheet: sheet, host: host)
        }
    }
}

/// One of the sheet's widgets, as a test names it (`.subject`), reached on the GTK thread.
struct Field: Sendable {
    let widget: @Sendable @GLibMainActor (ComposeSheet) -> GObjectRef

    static let to = Field { $0.to }
    static let cc = Field { $0.cc }
    static let bcc = Field { $0.bcc }
    static let subject = Field { $0.subject }
    static let showCc = Field { $0.showCc }
    static let showBcc = Field { $0.showBcc }
    static let errorLabel = Field { $0.errorLabel }
    static let statusLabel = Field { $0.statusLabel }
    static let subjectHidden = Field { $0.subjectHidden }
    static let requestedList = Field { $0.requestedList }
}

/// A sheet a test drives: every read and every act on the GTK thread.
final class SheetUnderTest: @unchecked Sendable {
    let harness: SheetHarness
    /// Touched, and let go, only on the GTK thread (`harness.run`): its widgets' references
    /// are dropped when it goes.
    private var sheet: ComposeSheet?
    let host: RecordingHost

    init(harness: SheetHarness, sheet: ComposeSheet, host: RecordingHost) {
        self.harness = harness
        self.sheet = sheet
        self.host = host
    }

    /// A sheet the test left open is ended first, as the application holds one until it ends:
    /// its window, handlers and timers hold it by pointer.
    deinit {
        harness.run { [self] in
            if let sheet, !sheet.hasEnded { sheet.end() }
            sheet = nil
        }
    }

    /// Runs `body` with the sheet on the GTK thread.
    func on<Value>(_ body: @escaping @Sendable @GLibMainActor (ComposeSheet) -> Value) -> Value {
        harness.run { [self] in body(sheet!) }
    }

    /// Activates the window action `name` (`send`, `cancel`, `save-draft`, `show-cc`…), as
    /// its button, menu item or accelerator does.
    func activate(_ name: String) {
        on { sheet in g_action_group_activate_action(mr_action_group(sheet.window.pointer), name, nil) }
    }

    /// Whether the window action `name` can be activated now (its button is sensitive).
    func isEnabled(_ name: String) -> Bool {
        on { sheet in g_action_group_get_action_enabled(mr_action_group(sheet.window.pointer), name) != 0 }
    }

    /// Replaces the text of an entry (`to`, `cc`, `bcc`, `subject`), as typing does: its
    /// `changed` handlers run.
    func type(_ text: String, into field: Field) {
        on { sheet in gtk_editable_set_text(mr_editable(field.widget(sheet).widget), text) }
    }

    /// Adds `text` at the end of the message, as typing there does (once the opening text is in).
    func append(toMessage text: String) throws {
        try waitUntil("the message's text is in the text view") { on { $0.spelling != nil } }
        on { sheet in
            let buffer = bufferPointer(sheet.buffer)
            var end = GtkTextIter()
            gtk_text_buffer_get_end_iter(buffer, &end)
            gtk_text_buffer_insert(buffer, &end, text, -1)
        }
    }

    func text(of field: Field) -> String {
        on { sheet in entryText(field.widget(sheet).widget) }
    }

    /// A label's text when it is shown, else `nil`.
    func shown(_ label: Field) -> String? {
        on { sheet in
            let widget = label.widget(sheet).widget
            guard gtk_widget_get_visible(widget) != 0, let text = gtk_label_get_text(mr_label(widget)) else { return nil }
            return String(cString: text)
        }
    }

    /// The problem shown beside address field `index` (0 To, 1 Cc, 2 Bcc), or `nil`.
    func addressProblem(_ index: Int) -> String? {
        on { sheet in
            let label = sheet.addressFields[index].1.widget
            guard gtk_widget_get_visible(label) != 0, let text = gtk_label_get_text(mr_label(label)) else { return nil }
            return String(cString: text)
        }
    }

    /// The window's title, as the desktop and a screen reader name it.
    var windowTitle: String? {
        on { sheet in gtk_window_get_title(mr_window(sheet.window.widget)).map { String(cString: $0) } }
    }

    func isShown(_ widget: Field) -> Bool {
        on { sheet in gtk_widget_get_visible(widget.widget(sheet).widget) != 0 }
    }

    /// The heading of the question asked over the sheet now ("Save this message as a
    /// draft?", "Send without id_rsa?"), or `nil`.
    var question: String? {
        on { sheet in
            guard let dialog = sheet.question?.dialog ?? sheet.untickedQuestion?.dialog else { return nil }
            return adw_message_dialog_get_heading(mr_message_dialog(dialog.dialog.pointer)).map { String(cString: $0) }
        }
    }

    /// Answers the question asked now with the response `id`, as its button does.
    func answer(_ id: String) throws {
        let answered = on { sheet in
            guard let dialog = sheet.question?.dialog ?? sheet.untickedQuestion?.dialog else { return false }
            adw_message_dialog_response(mr_message_dialog(dialog.dialog.pointer), id)
            return true
        }
        if !answered { throw TestSupportError("no question to answer with \(id)") }
    }

    /// The message as the sheet would hand it to its host now.
    var message: EmailData { on { $0.message() } }

    var hasEnded: Bool { on { $0.hasEnded } }

    /// A Send is held for Undo now (its toast counting down).
    var isHeld: Bool { on { $0.hold != nil } }

    /// Whether the message can be typed in (not while an action runs or a Send is held).
    var isMessageEditable: Bool { on { gtk_text_view_get_editable(mr_text_view($0.textView.widget)) != 0 } }

    /// Closes the hold's toast with its ×, as the person does who wants no Undo.
    func dismissTheHoldsToast() throws {
        let dismissed = on { sheet in
            guard let hold = sheet.hold else { return false }
            adw_toast_dismiss(OpaquePointer(hold.toast.pointer))
            return true
        }
        if !dismissed { throw TestSupportError("no held Send's toast to dismiss") }
    }

    /// Waits until the sheet has ended (its action done, its window gone).
    func waitUntilEnded() throws {
        try waitUntil("the sheet ended") { hasEnded }
    }
}

/// The sheet's host, recording what the sheet asked of it; `answer` decides each action's result.
final class RecordingHost: SheetHost, @unchecked Sendable {
    enum Event: Equatable {
        case performed(SheetAction)
        case cancelled
        case closed
        case ended
        /// Undo of a held Send was asked for.
        case undo
        /// A Send is about to run (`willSend`).
        case willSend
        /// Stop of the running Send was asked for.
        case stop
    }

    private let lock = NSLock()
    private var recorded: [Event] = []
    private var emails: [EmailData] = []
    private let answer: @Sendable (SheetAction) -> SheetActionResult
    private let undoRefusal: String?
    private let stopsInTime: Bool

    /// `answer`: each action's result (on the sheet's worker thread: it may wait);
    /// `undoRefusal`: why an Undo is refused (its sending began), `nil` to take the message
    /// back; `stopsInTime`: what a Stop of a running Send answers (`false`: too late).
    init(undoRefusal: String? = nil, stopsInTime: Bool = true,
         answer: @escaping @Sendable (SheetAction) -> SheetActionResult = { _ in .finished }) {
        self.undoRefusal = undoRefusal
        self.stopsInTime = stopsInTime
        self.answer = answer
    }

    /// What happened, in order.
    var events: [Event] { lock.withLock { recorded } }
    /// The message each action was asked with.
    var messages: [EmailData] { lock.withLock { emails } }

    private func record(_ event: Event) {
        lock.withLock { recorded.append(event) }
    }

    func perform(_ action: SheetAction, with email: EmailData, from account: String?) -> SheetActionResult {
        lock.withLock {
            recorded.append(.performed(action))
            emails.append(email)
        }
        return answer(action)
    }

    func cancelled() { record(.cancelled) }
    func sheetClosed() { record(.closed) }
    /// The application's `ended` (the window is gone).
    func ended() { record(.ended) }
    func forgetRecipient(_ address: String) {}
    func forgetWay() -> String? { nil }
    func undoHold() -> String? {
        record(.undo)
        return undoRefusal
    }
    func heldWindowClosed() {}
    func willSend() { record(.willSend) }
    func stopSending() -> Bool {
        record(.stop)
        return stopsInTime
    }
}

/// The application, made on the loop's thread and used only there.
private struct UncheckedApplication: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GtkApplication>
}
