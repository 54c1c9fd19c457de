internal import CGTK
import MailtoCore
import MainLoop

/// One compose sheet: a libadwaita window, declared in `UI/compose-sheet.ui`, that shows a
/// message, lets the user write it, and hands what they choose (Send, Save Draft, Open in
/// NAME, Cancel) to its host. What the user can do is a window action (`win.send`,
/// `win.save-draft`, `win.attach`, `win.cancel`, `win.hand-off`, `win.show-cc`,
/// `win.show-bcc`) with its accelerator: a button, a menu item and a key do the same thing.
///
/// Ownership (docs/style.md habits 2 and 14): the sheet holds one reference to every GObject it
/// touches after building (`GObjectRef`), connects its signal handlers through `connections`
/// and disconnects them in `end()`, before the window is destroyed and the references
/// dropped. The C callbacks (ComposeSheet+Callbacks.swift) are top-level functions that find
/// the sheet again with `Unmanaged`; the application keeps the sheet alive from `present()`
/// until `end()`.
@GLibMainActor
final class ComposeSheet {
    /// Changes once, when sending is set up in the sheet (`sendingSetUp`).
    var content: SheetContent
    let host: any SheetHost
    /// Puts text on the clipboard and holds it there (the application's `copy`).
    var copyAddresses: ((String) throws(ServiceError) -> Void)?
    let recovery: RecoveryFile?
    /// Told when the sheet is gone, with the hold that goes on without it, if any.
    private let ended: (ComposeSheet, ClosedHold?) -> Void

    private let title: GObjectRef
    let toasts: GObjectRef
    var connections = SignalConnections()
    private var controllers: [GObjectRef] = []
    /// Controllers on the text view (the spelling's right click), taken off in `end()`.
    private var textControllers: [GObjectRef] = []
    var actions: [String: GObjectRef] = [:]

    // The fields, in Tab order.
    let to: GObjectRef
    let cc: GObjectRef
    let bcc: GObjectRef
    let subject: GObjectRef
    let textView: GObjectRef
    let buffer: GObjectRef
    private let problemLabels: [GObjectRef]
    private let ccRow: [GObjectRef]
    private let bccRow: [GObjectRef]
    let showCc: GObjectRef
    let showBcc: GObjectRef
    let subjectHidden: GObjectRef
    let bodyHidden: GObjectRef
    let errorLabel: GObjectRef
    let statusLabel: GObjectRef
    /// Send, with Send Later's arrow (an AdwSplitButton): insensitive as a whole during a hold.
    let sendButton: GObjectRef

    // The attachments.
    let attachmentList: GObjectRef
    let requestedList: GObjectRef
    var files: [FileRow] = []

    /// The user changed something since the sheet opened.
    var edited = false
    /// The recovered message this sheet shows, when it has no recovery file to take it
    /// over: its old file goes when the sheet ends.
    var leftover: RecoveredMessage?
    /// An action is running on the worker thread: the sheet waits for it.
    var busy = false
    /// The action running is a Send: Cancel (Escape, closing the window) stops it
    /// (`requestStop`), as long as the server cannot have the message yet.
    var sendRunning = false
    var hasEnded = false
    var question: SaveQuestion?
    /// "Send without …?", while it is asked.
    var untickedQuestion: SendWithoutQuestion?
    var timeQuestion: SendLaterQuestion?
    /// A Send held for Undo (ComposeSheet+Hold.swift): its countdown and its toast.
    var hold: SendHold?
    var chooser: FileChooser?
    /// "Set up sending" (ComposeSheet+Setup.swift): the offer in the sheet, its window when open.
    var setupOffer: SetupOffer?
    var setupDialog: SetupDialog?
    private var recoveryTimer: guint = 0
    private var recoveryDue = false
    private var hiddenCheckTimer: guint = 0
    /// The text the message opens with, until it is in the text view (`fillBody`).
    private var pendingBody: String?
    /// The message's spelling, from the moment the message is in the text view.
    private(set) var spelling: SheetSpelling?
    /// The completion of To, Cc and Bcc.
    private var completions: [AddressCompletion] = []
    private var fillSource: guint = 0
    /// The From chooser, when there is more than one account (ComposeSheet+From.swift).
    var fromChooser: FromChooser?

    // Declared last, and so released last (Swift releases stored properties in order): a
    // widget inside the window, or a window transient for it, released after the window
    // is finalized would disconnect its handlers from freed memory.
    /// The shortcuts window (Ctrl+?), transient for the sheet's window: made when first
    /// asked for and destroyed when closed (`UIBuilder(_:only:)` says why no window waits
    /// unshown).
    private var shortcuts: GObjectRef?
    let window: GObjectRef

    init(
        application: UnsafeMutablePointer<GtkApplication>, content: SheetContent, host: any SheetHost,
        recovery: RecoveryFile?, ended: @escaping (ComposeSheet, ClosedHold?) -> Void
    ) {
        self.content = content
        self.host = host
        self.recovery = recovery
        self.ended = ended

        let ui = UIBuilder(Embedded.composeSheet)
        window = ui.object("window")
        gtk_window_set_application(mr_window(window.widget), application)
        title = ui.object("title")
        toasts = ui.object("toasts")
        to = ui.object("to")
        cc = ui.object("cc")
        bcc = ui.object("bcc")
        subject = ui.object("subject")
        textView = ui.object("message")
        buffer = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_text_view_get_buffer(mr_text_view(textView.widget))))
        problemLabels = ["to-problem", "cc-problem", "bcc-problem"].map(ui.object)
        ccRow = [ui.object("cc-name"), cc]
        bccRow = [ui.object("bcc-name"), bcc]
        showCc = ui.object("show-cc")
        showBcc = ui.object("show-bcc")
        subjectHidden = ui.object("subject-hidden")
        bodyHidden = ui.object("body-hidden")
        errorLabel = ui.object("error")
        statusLabel = ui.object("status")
        sendButton = ui.object("send")
        attachmentList = ui.object("attachments")
        requestedList = ui.object("requested")

        if let application = content.requestingApplication {
            // In the window too, not only its title: the user sees who asked before sending.
            let requester = ui.object("requester")
            gtk_label_set_text(mr_label(requester.widget), tr("%@ asks to send this message.", application.visible))
            setVisible(requester.widget, true)
        }
        let notices = ui.object("notices")
        for notice in content.notices {
            gtk_box_append(mr_box(notices.widget), label(notice.visible, classes: ["warning"], wrap: true))
        }

        // Not selectable: a selectable label takes the focus, and Tab goes from To on.
        gtk_label_set_text(mr_label(ui.object("from").widget), content.from?.visible ?? tr("no account"))
        if content.accounts.count > 1 { fromChooser = makeFromChooser(in: ui.object("fields"), replacing: ui.object("from")) }
        // No account at all: the sheet offers to set one up (below) rather than naming a command.
        if !content.offersSetup, let reason = content.sendUnavailable {
            let unavailable = ui.object("send-unavailable")
            gtk_label_set_text(mr_label(unavailable.widget), tr("Cannot send from here: %@", reason.visible))
            setVisible(unavailable.widget, true)
        }

        for (field, addresses) in [(to, content.email.to), (cc, content.email.cc), (bcc, content.email.bcc)] {
            gtk_editable_set_text(mr_editable(field.widget), AddressList.text(addresses, names: content.email.names))
        }
        gtk_editable_set_text(mr_editable(subject.widget), content.email.subject ?? "")
        pendingBody = Signature.appended(content.signature, to: MessageText.forEditing(content.email.body ?? ""))

        // Rule 8: what the link asked for, apart, unticked, with the program that asked.
        if !content.email.requestedAttachments.isEmpty {
            let asker = content.attachmentsRequestedBy.map { tr("%@ asks to attach", $0) } ?? tr("The link asks to attach")
            let heading = ui.object("requested-heading")
            gtk_label_set_text(mr_label(heading.widget), asker.visible)
            mr_set_accessible_label(requestedList.widget, asker.visible)
            for widget in [heading, ui.object("requested-note"), requestedList] { setVisible(widget.widget, true) }
        }
        for attachment in content.email.attachments { addFile(FileRow(trusted: attachment)) }
        for path in content.email.requestedAttachments { addFile(FileRow(requested: path)) }

        addActions(application, handOffSection: ui.object("hand-off-section"))
        Self.nameSendLaterArrow(sendButton.widget)
        // Cc and Bcc are folded behind their buttons beside To unless the message has them.
        if !content.email.cc.isEmpty { unfold(ccRow, button: showCc, focus: false) }
        if !content.email.bcc.isEmpty { unfold(bccRow, button: showBcc, focus: false) }
        updateTitle()
        completions = [to, cc, bcc].map { AddressCompletion(sheet: self, entry: $0) }
        connectSignals()
        if content.offersSetup { setupOffer = SetupOffer(in: self, notices: notices, from: ui.object("from")) }
        checkAddresses()
        checkSubject()
        if content.isRecovered {
            // Rule 3: the user's writing, kept in this sheet's own recovery file now (its
            // old one goes once that is written).
            edited = true
            recovery?.writeInBackground(content.email)
        }
    }

    /// Shows the sheet, the first empty field focused (the message, once To is filled);
    /// `activationToken` (the launcher's XDG activation token or startup id) lets the
    /// desktop give it the focus the click asked for (WindowActivation.swift).
    func present(activationToken: String? = nil) {
        // Before presenting: focusing To and then moving on would leave its text selected.
        let first = entryText(to.widget).isEmpty ? to : textView
        gtk_window_set_focus(mr_window(window.widget), first.widget)
        setTransientParent(window.widget, content.parentWindow)
        presentWindow(window.widget, activationToken: activationToken)
        if content.offersSetup, content.opensSetup { openSetup() }
    }

    /// The request behind the sheet was withdrawn (the Email portal's `Request.Close`):
    /// with nothing edited the sheet ends as cancelled; with edits, what the user wrote is
    /// saved as a draft (rule 3: nothing written is lost), then the sheet ends.
    func withdraw() {
        guard !hasEnded else { return }
        question?.close()
        question = nil
        untickedQuestion?.close()
        untickedQuestion = nil
        // A held Send is the user's: it goes at its time, or by their Undo.
        if busy || hold != nil { return }
        if edited {
            start(.saveDraft)
        } else {
            host.cancelled()
            end()
        }
    }

    private var data: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    // MARK: - Actions and their accelerators

    /// The window's actions, the accelerators menus show, and a capture-phase shortcut
    /// controller for the keys a text view or an entry would take first (Ctrl+Enter would be
    /// a new line, Ctrl+Shift+A unselects, Escape ends a field's editing).
    private func addActions(_ application: UnsafeMutablePointer<GtkApplication>, handOffSection: GObjectRef) {
        let handlers: [(String, ActionHandler)] = [
            ("send", onSendAction), ("save-draft", onSaveDraftAction), ("attach", onAttachAction),
            ("cancel", onCancelAction), ("show-cc", onShowCcAction), ("show-bcc", onShowBccAction),
            ("hand-off", onHandOffAction), ("forget-way", onForgetWayAction), ("copy-address", onCopyAddressAction),
            ("send-at", onSendAtAction), ("undo-send", onUndoSendAction), ("show-help-overlay", onShowShortcutsAction),
        ]
        for (name, handler) in handlers {
            guard name != "hand-off" || content.mailProgramName != nil else { continue }
            guard name != "forget-way" || content.remembersWay else { continue }
            // Transfer full, adopted; the window's action map takes a reference of its own.
            guard let made = g_simple_action_new(name, nil) else { preconditionFailure("g_simple_action_new returned NULL") }
            let action = GObjectRef(adopting: UnsafeMutableRawPointer(made))
            connections.connect(action, "activate", callback(handler), data: data)
            g_action_map_add_action(mr_action_map_of(window.pointer), mr_action(made))
            actions[name] = action
        }
        // Send Later's choices in the Send button's menu: `win.send-later::hour` and
        // `::tomorrow` (ComposeSheet+Hold.swift).
        if let made = mr_string_action_new("send-later") {
            let action = GObjectRef(adopting: UnsafeMutableRawPointer(made))
            connections.connect(action, "activate", callback(onSendLaterAction), data: data)
            g_action_map_add_action(mr_action_map_of(window.pointer), mr_action(made))
            actions["send-later"] = action
        }
        setEnabled("undo-send", false)
        if let name = content.mailProgramName {
            g_menu_append(mr_menu(handOffSection.pointer), tr("Open in %@", name.visible), "win.hand-off")
        }
        g_menu_append(mr_menu(handOffSection.pointer), tr("Copy Address"), "win.copy-address")
        if content.remembersWay {
            g_menu_append(mr_menu(handOffSection.pointer), tr("Ask How to Send Each Time"), "win.forget-way")
        }
        let keys: [(String, [String])] = [
            ("win.send", ["<Control>Return", "<Control>KP_Enter"]), ("win.save-draft", ["<Control>s"]),
            ("win.attach", ["<Control><Shift>a"]), ("win.cancel", ["Escape"]),
            ("win.show-help-overlay", ["<Control>question"]),
        ]
        for (action, accels) in keys {
            mr_set_accels(application, action, accels[0], accels.count > 1 ? accels[1] : nil)
        }
        let controller = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_shortcut_controller_new()))
        gtk_event_controller_set_propagation_phase(mr_event_controller(controller.pointer), GTK_PHASE_CAPTURE)
        for (action, accels) in keys where action != "win.show-help-overlay" {
            // Both transfer full into the shortcut, which the controller then owns.
            let shortcut = gtk_shortcut_new(gtk_shortcut_trigger_parse_string(accels.joined(separator: "|")), gtk_named_action_new(action))
            gtk_shortcut_controller_add_shortcut(OpaquePointer(controller.pointer), shortcut)
        }
        gtk_widget_add_controller(window.widget, mr_event_controller(controller.pointer))
        controllers.append(controller)
    }

    /// The menu's Keyboard Shortcuts and Ctrl+?: the shortcuts window, made now, modal over
    /// the sheet (as GtkApplicationWindow's help overlay is), gone when closed.
    func showShortcuts() {
        if let shortcuts, gtk_widget_get_visible(shortcuts.widget) != 0 { return gtk_window_present(mr_window(shortcuts.widget)) }
        let made = UIBuilder(Embedded.shortcuts).object("help_overlay")
        let shown = mr_window(made.widget)
        gtk_window_set_transient_for(shown, mr_window(window.widget))
        gtk_window_set_destroy_with_parent(shown, 1)
        gtk_window_set_hide_on_close(shown, 0)
        shortcuts = made
        gtk_window_present(shown)
    }

    func setEnabled(_ name: String, _ enabled: Bool) {
        guard let action = actions[name] else { return }
        g_simple_action_set_enabled(mr_simple_action(action.pointer), enabled ? 1 : 0)
    }

    /// Shows a folded field (Cc or Bcc) and hides the button that showed it.
    func unfold(_ row: [GObjectRef], button: GObjectRef, focus: Bool) {
        for widget in row { setVisible(widget.widget, true) }
        setVisible(button.widget, false)
        if focus { gtk_widget_grab_focus(row[row.count - 1].widget) }
    }

    func showCcField() { unfold(ccRow, button: showCc, focus: true) }
    func showBccField() { unfold(bccRow, button: showBcc, focus: true) }

    /// "New Message", or "Message to Ann" once it has a recipient; the subtitle names the
    /// program that asked for it.
    func updateTitle() {
        let list = AddressList(entryText(to.widget))
        let text: String
        if let first = list.addresses.first {
            let name = list.names[first] ?? content.email.names[first] ?? first
            let more = list.addresses.count - 1
            text = more > 0 ? trn("Message to %@ and %@ more", "Message to %@ and %@ more", more, name, more) : tr("Message to %@", name)
        } else {
            text = tr("New Message")
        }
        adw_window_title_set_title(mr_window_title(title.pointer), text.visible)
        adw_window_title_set_subtitle(mr_window_title(title.pointer), content.requestingApplication.map { tr("from %@", $0.visible) } ?? "")
        // The window's own title is what the desktop and a screen reader name it by.
        gtk_window_set_title(mr_window(window.widget), text.visible)
    }

    /// The user forgot an address offered from the history.
    func forgetRecipient(_ address: String) {
        host.forgetRecipient(address)
    }

    /// A short message over the sheet that goes by itself (AdwToast).
    /// Copy Address from the menu: the sheet's recipients as they stand now (To, Cc, Bcc, as
    /// `mailto-route copy` copies a link's) on the clipboard, held by the application
    /// (`copyAddresses`, SheetApplication's `copy`); the sheet stays as it is.
    func copyAddress() {
        let text = message().copiedAddresses
        guard !text.isEmpty else { return toast(tr("No address to copy")) }
        do throws(ServiceError) {
            try copyAddresses?(text)
            toast(tr("Copied: %@", text))
        } catch {
            toast(error.description)
        }
    }

    /// Shows `text` as a toast over the sheet. Escaped: libadwaita 1.2 reads a toast's title
    /// as Pango markup, and a title with an address in it (`Joe <joe@example.org>`) was not
    /// valid markup, so the toast showed nothing.
    func toast(_ text: String) {
        guard let escaped = g_markup_escape_text(text, -1) else { return }
        defer { g_free(escaped) }
        adw_toast_overlay_add_toast(mr_toast_overlay(toasts.pointer), adw_toast_new(escaped))
    }

    // MARK: - Filling in

    /// Mapped: the message text goes in once the main loop is idle. GTK 4.8 takes seconds to
    /// put a window whose text view already holds megabytes on the accessibility bus (a
    /// screen reader would find nothing meanwhile), and none when the text comes after.
    func mapped() {
        guard pendingBody != nil, fillSource == 0 else { return }
        fillSource = mr_idle_add(onFillBody, data)
    }

    /// Puts the opening text in, then connects the body's handlers: it is not an edit.
    func fillBody() {
        fillSource = 0
        guard let body = pendingBody else { return }
        pendingBody = nil
        gtk_text_buffer_set_text(bufferPointer(buffer), body, -1)
        var start = GtkTextIter()
        gtk_text_buffer_get_start_iter(bufferPointer(buffer), &start)
        gtk_text_buffer_place_cursor(bufferPointer(buffer), &start)
        connections.connect(buffer, "changed", callback(onBodyChanged), data: data)
        connections.connect(buffer, "insert-text", callback(onBodyInserted), data: data)
        connections.connect(buffer, "delete-range", callback(onBodyDeleted), data: data)
        if MessageText.hiddenCharacters(in: body) != nil { checkBody() }
        startSpelling()
    }

    /// The spelling's underline, its menu and its actions (after the first frame: enchant
    /// loads its dictionaries).
    private func startSpelling() {
        let spelling = SheetSpelling(sheet: self)
        self.spelling = spelling
        connections.connect(spelling.controller, "pressed", callback(onTextRightClick), data: data)
        gtk_widget_add_controller(textView.widget, mr_event_controller(spelling.controller.pointer))
        textControllers.append(spelling.controller)
        let handlers: [(String, ActionHandler)] = [
            ("spelling-replace", onSpellingReplaceAction), ("spelling-language", onSpellingLanguageAction),
        ]
        for (name, handler) in handlers {
            let made = name == "spelling-language" ? mr_stateful_string_action_new(name, "")
                : mr_string_action_new(name)
            guard let made else { continue }
            let action = GObjectRef(adopting: UnsafeMutableRawPointer(made))
            connections.connect(action, "activate", callback(handler), data: data)
            g_action_map_add_action(mr_action_map_of(window.pointer), mr_action(made))
            actions[name] = action
        }
        spelling.start()
        if let language = spelling.checker?.language, let action = actions["spelling-language"] {
            g_simple_action_set_state(mr_simple_action(action.pointer), mr_variant_string(language))
        }
    }

    private func connectSignals() {
        for field in [to, cc, bcc] {
            connections.connect(field, "changed", callback(onAddressChanged), data: data)
        }
        connections.connect(subject, "changed", callback(onSubjectChanged), data: data)
        connections.connect(to, "changed", callback(onToChanged), data: data)
        connections.connect(window, "close-request", callback(onCloseRequest), data: data)
        connections.connect(window, "map", callback(onMapped), data: data)

        // Files dropped anywhere on the sheet are attached (the user's own hand: trusted).
        let drop = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_drop_target_new(mr_file_list_type(), GDK_ACTION_COPY)))
        connections.connect(drop, "drop", callback(onDrop), data: data)
        gtk_widget_add_controller(window.widget, mr_event_controller(drop.pointer))
        controllers.append(drop)
    }

    // MARK: - Checks while writing

    var addressFields: [(GObjectRef, GObjectRef)] { Array(zip([to, cc, bcc], problemLabels)) }

    /// Each field's first address that does not read, beside it; Send only with at least
    /// one recipient and no field in error.
    func checkAddresses() {
        var recipients = 0
        var allValid = true
        for (field, problem) in addressFields {
            let list = AddressList(entryText(field.widget))
            recipients += list.addresses.count
            if let reason = list.problem {
                allValid = false
                gtk_label_set_text(mr_label(problem.widget), reason.visible)
                gtk_widget_add_css_class(field.widget, "error")
            } else {
                gtk_widget_remove_css_class(field.widget, "error")
            }
            setVisible(problem.widget, list.problem != nil)
            mr_set_accessible_invalid(field.widget, list.problem == nil ? 0 : 1)
        }
        let canSend = recipients > 0 && allValid && content.sendUnavailable == nil && !busy && hold == nil
        setEnabled("send", canSend)
        setEnabled("send-later", canSend)
        setEnabled("send-at", canSend)
    }

    func checkSubject() {
        let text = entryText(subject.widget)
        let hidden = text.unicodeScalars.contains(where: \.isInvisibleOrControl)
        if hidden {
            gtk_label_set_text(mr_label(subjectHidden.widget),
                               tr("The subject holds invisible or direction-changing characters: %@", text.visible))
        }
        setVisible(subjectHidden.widget, hidden)
    }

    /// Typing scans only what is typed: a whole scan is needed only when the text holds
    /// hidden characters (a deletion may have taken them) or an insertion brings some, and
    /// then once the text has been still for a moment, so that a 10 MB message never costs
    /// a scan per key press.
    func bodyInserted(_ text: String) {
        if MessageText.hiddenCharacters(in: text) != nil { scheduleBodyCheck() }
    }

    func bodyDeleted() {
        if gtk_widget_get_visible(bodyHidden.widget) != 0 { scheduleBodyCheck() }
    }

    func scheduleBodyCheck() {
        if hiddenCheckTimer != 0 { g_source_remove(hiddenCheckTimer) }
        hiddenCheckTimer = mr_timeout_add(400, onBodyCheckDue, data)
    }

    func checkBody() {
        hiddenCheckTimer = 0
        let text = bufferText(bufferPointer(buffer))
        if let found = MessageText.hiddenCharacters(in: text) {
            // Translators: the singular says "an invisible character", without the number.
            let text = trn("The message holds an invisible or direction-changing character, on line %2$@: %3$@",
                           "The message holds %@ invisible or direction-changing characters, the first on line %@: %@",
                           found.count, found.count, found.line, found.shown)
            gtk_label_set_text(mr_label(bodyHidden.widget), text)
            setVisible(bodyHidden.widget, true)
        } else {
            setVisible(bodyHidden.widget, false)
        }
    }

    // MARK: - Edits and the recovery file

    /// Something changed: the sheet is edited, and the recovery file is rewritten within
    /// a second or two (docs/design.md rule 3: what the user typed is never lost).
    func noteEdit() {
        edited = true
        recoveryDue = true
        if recoveryTimer == 0, recovery != nil {
            recoveryTimer = mr_timeout_add(1000, onRecoveryDue, data)
        }
    }

    /// Writes the recovery file when something changed since the last write; the timer
    /// stops when nothing did.
    func writeRecovery() -> Bool {
        guard recoveryDue, let recovery else {
            recoveryTimer = 0
            return false
        }
        // The last write is still going (a long body): the next tick writes this one.
        guard !recovery.isWriting else { return true }
        recoveryDue = false
        // The body as the text view holds it (LF): the parser makes every line break CRLF
        // when the file is read back, and the main loop does not convert 10 MB every second.
        recovery.writeInBackground(message(convertingLineBreaks: false))
        return true
    }

    // MARK: - The message as it stands

    /// What the sheet holds now, as EmailData: the addresses that read, the subject, the
    /// body with CRLF line breaks, the ticked files. What the link asked for and the user
    /// did not tick stays in `requestedAttachments`, never in `attachments`.
    func message(convertingLineBreaks: Bool = true) -> EmailData {
        var email = content.email
        // The names are the ones typed now: a name the link gave and the user took out
        // is gone.
        email.names = [:]
        for (field, path) in [(to, \EmailData.to), (cc, \.cc), (bcc, \.bcc)] {
            let list = AddressList(entryText(field.widget))
            email[keyPath: path] = list.addresses
            email.names.merge(list.names) { $1 }
        }
        let subjectText = entryText(subject.widget)
        email.subject = subjectText.isEmpty && content.email.subject == nil ? nil : subjectText
        let body = pendingBody ?? bufferText(bufferPointer(buffer))
        email.body = body.isEmpty && content.email.body == nil ? nil : (convertingLineBreaks ? MessageText.forSending(body) : body)
        email.attachments = files.filter(\.isTicked).compactMap(\.attachment)
        email.requestedAttachments = files.filter { $0.origin == .requested && !$0.isTicked }.compactMap(\.path)
        email.dropped = []
        return email
    }

    // MARK: - Doing what the user chose

    func requestSend() {
        guard !busy, let send = actions["send"], g_action_get_enabled(mr_action(OpaquePointer(send.pointer))) != 0 else { return }
        start(.send)
    }

    /// Runs `action` on a worker thread (SheetJob); the sheet waits, insensitive, and
    /// `finish` gets the result on the main loop.
    func start(_ action: SheetAction) {
        guard !busy, !hasEnded else { return }
        busy = true
        setVisible(errorLabel.widget, false)
        let doing = switch action {
        case .send, .releaseHold: tr("Sending…")
        case .saveDraft: tr("Saving…")
        case .handOff: tr("Opening…")
        case .sendLater: tr("Scheduling…")
        }
        gtk_label_set_text(mr_label(statusLabel.widget), doing)
        setVisible(statusLabel.widget, true)
        sendRunning = action == .send || action == .releaseHold
        if sendRunning { host.willSend() }
        setBusyLook(true)
        SheetJob.run(action, with: message(), from: chosenAccount, host: host) { [self] result in finish(action, result) }
    }

    /// While an action runs, nothing can be changed. The text view is made read-only rather
    /// than insensitive: a style change makes it lay out all of a long message again.
    func setBusyLook(_ isBusy: Bool) {
        for widget in [to, cc, bcc, subject, attachmentList, requestedList] {
            setSensitive(widget.widget, !isBusy)
        }
        for name in ["save-draft", "attach", "hand-off", "show-cc", "show-bcc"] { setEnabled(name, !isBusy) }
        // While a Send runs, Cancel is its Stop.
        setEnabled("cancel", !isBusy || sendRunning)
        if let fromChooser { setSensitive(fromChooser.button.widget, !isBusy) }
        gtk_text_view_set_editable(mr_text_view(textView.widget), isBusy ? 0 : 1)
        if isBusy {
            for name in ["send", "send-later", "send-at"] { setEnabled(name, false) }
        } else {
            checkAddresses()
        }
    }

    func finish(_ action: SheetAction, _ result: SheetActionResult) {
        busy = false
        sendRunning = false
        setVisible(statusLabel.widget, false)
        setBusyLook(false)
        switch result {
        case .finished:
            end()
        case .held(let seconds):
            beginHold(seconds: seconds)
        case .failed(let message):
            let what = switch action {
            case .send, .releaseHold, .sendLater: tr("Not sent: %@", message.visible)
            case .saveDraft: tr("Not saved: %@", message.visible)
            case .handOff: tr("Not handed off: %@", message.visible)
            }
            gtk_label_set_text(mr_label(errorLabel.widget), what)
            setVisible(errorLabel.widget, true)
            if action == .releaseHold {
                // The server refused it for good: the text is the sheet's again (the
                // outbox keeps the refused copy in failed/).
                recovery?.resume(with: self.message(convertingLineBreaks: false))
            }
        }
    }

    /// Cancel, Escape or closing the window while a Send runs: it stops if the server
    /// cannot have the message yet, and `finish` then says that nothing was sent and gives
    /// the sheet back; else the sheet says it is too late and waits for the outcome.
    func requestStop() {
        guard host.stopSending() else {
            gtk_label_set_text(mr_label(statusLabel.widget), tr("Too late to stop: the mail server has the message"))
            return
        }
        gtk_label_set_text(mr_label(statusLabel.widget), tr("Stopping…"))
        setEnabled("cancel", false)
    }

    /// Cancel, Escape or closing the window: with nothing edited the sheet ends as
    /// cancelled; with edits, the user is asked whether to keep them.
    func requestCancel() {
        // Closing the window while Send is held: it still goes, Undo moves to a notification.
        if hold != nil {
            closeDuringHold()
            return
        }
        guard !hasEnded else { return }
        if busy {
            if sendRunning { requestStop() }
            return
        }
        // Escape first closes a list of suggestions that is open.
        if let shown = completions.first(where: \.isShown) {
            shown.hide()
            return
        }
        if question != nil { return }
        guard edited else {
            host.cancelled()
            end()
            return
        }
        question = SaveQuestion(over: self)
    }

    func answer(_ answer: SaveQuestion.Answer) {
        question?.close()
        question = nil
        switch answer {
        case .save: start(.saveDraft)
        case .discard:
            host.cancelled()
            end()
        case .keepEditing: gtk_widget_grab_focus(textView.widget)
        }
    }

    /// The sheet is done: every handler disconnected, the timers stopped, the recovery
    /// file removed, the window destroyed, the host and the application told. With a
    /// hold that goes on without the window (`handingOver`), the recovery file and the
    /// request are that hold's, and only the application is told.
    func end(handingOver closedHold: ClosedHold? = nil) {
        guard !hasEnded else { return }
        hasEnded = true
        question?.close()
        question = nil
        untickedQuestion?.close()
        untickedQuestion = nil
        setupDialog?.close()
        setupDialog = nil
        setupOffer?.remove()
        setupOffer = nil
        timeQuestion?.close()
        timeQuestion = nil
        stopHold()
        chooser?.close()
        chooser = nil
        for timer in [recoveryTimer, hiddenCheckTimer, fillSource] where timer != 0 { g_source_remove(timer) }
        recoveryTimer = 0
        hiddenCheckTimer = 0
        fillSource = 0
        spelling?.stop()
        for completion in completions { completion.detach() }
        completions = []
        connections.disconnectAll()
        for row in files { row.disconnect() }
        for controller in controllers { gtk_widget_remove_controller(window.widget, mr_event_controller(controller.pointer)) }
        for controller in textControllers { gtk_widget_remove_controller(textView.widget, mr_event_controller(controller.pointer)) }
        controllers = []
        textControllers = []
        if closedHold == nil { recovery?.remove() }
        gtk_window_destroy(mr_window(window.widget))
        if closedHold == nil { host.sheetClosed() }
        ended(self, closedHold)
    }
}

func bufferPointer(_ buffer: GObjectRef) -> UnsafeMutablePointer<GtkTextBuffer> {
    buffer.pointer.assumingMemoryBound(to: GtkTextBuffer.self)
}
