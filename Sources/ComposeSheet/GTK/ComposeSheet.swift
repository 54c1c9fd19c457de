internal import CGTK
import MailtoCore

/// One compose sheet: a GTK window that shows a message, lets the user write it, and
/// hands what they choose (Send, Save Draft, Open in NAME, Cancel) to its host.
///
/// Ownership (docs/style.md habits 2 and 14): the sheet holds one reference to every GObject it
/// touches after building (sunk, `GObjectRef`), connects its signal handlers through
/// `connections` and disconnects them in `end()`, before the window is destroyed and the
/// references dropped. The C callbacks (ComposeSheet+Callbacks.swift) are top-level
/// functions that find the sheet again with `Unmanaged`; the application keeps the sheet
/// alive from `present()` until `end()`.
final class ComposeSheet {
    let content: SheetContent
    let host: any SheetHost
    let recovery: RecoveryFile?
    private let ended: (ComposeSheet) -> Void

    let window: GObjectRef
    var connections = SignalConnections()
    private var controllers: [GObjectRef] = []

    // The fields, in Tab order.
    let to: GObjectRef
    let cc: GObjectRef
    let bcc: GObjectRef
    let subject: GObjectRef
    let textView: GObjectRef
    let buffer: GObjectRef
    private var problemLabels: [GObjectRef] = []
    let subjectHidden: GObjectRef
    let bodyHidden: GObjectRef
    let errorLabel: GObjectRef
    let statusLabel: GObjectRef
    let form: GObjectRef

    // The attachments.
    let attachmentList: GObjectRef
    let requestedList: GObjectRef
    let addButton: GObjectRef
    var files: [FileRow] = []

    // The buttons.
    let send: GObjectRef
    let saveDraft: GObjectRef
    let cancel: GObjectRef
    let handOff: GObjectRef?

    /// The user changed something since the sheet opened.
    var edited = false
    /// An action is running on the worker thread: the sheet waits for it.
    var busy = false
    var hasEnded = false
    var question: SaveQuestion?
    var chooser: FileChooser?
    private var recoveryTimer: guint = 0
    private var recoveryDue = false
    private var hiddenCheckTimer: guint = 0
    /// The text the message opens with, until it is in the text view (`fillBody`).
    private var pendingBody: String?
    private var fillSource: guint = 0

    init(
        application: UnsafeMutablePointer<GtkApplication>, content: SheetContent, host: any SheetHost,
        recovery: RecoveryFile?, ended: @escaping (ComposeSheet) -> Void
    ) {
        self.content = content
        self.host = host
        self.recovery = recovery
        self.ended = ended

        window = GObjectRef(sinking: gtk_application_window_new(application))
        let title = content.requestingApplication.map { "New Message from \($0.visible)" } ?? "New Message"
        gtk_window_set_title(mr_window(window.widget), title)
        gtk_window_set_default_size(mr_window(window.widget), 680, 640)

        let outer = box(GTK_ORIENTATION_VERTICAL, spacing: 8)
        for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            side(outer, 14)
        }
        // A width below which the sheet does not go: measured without one, every wrapping
        // label would ask for its height at one word per line, and the window would open
        // taller than the screen.
        gtk_widget_set_size_request(outer, 560, -1)
        gtk_window_set_child(mr_window(window.widget), outer)

        if let application = content.requestingApplication {
            // In the window too, not only its title: the user sees who asked before sending.
            gtk_box_append(mr_box(outer), label("\(application.visible) asks to send this message.", classes: ["dim-label"], wrap: true))
        }
        for notice in content.notices {
            gtk_box_append(mr_box(outer), label(notice.visible, classes: ["warning"], wrap: true))
        }
        errorLabel = GObjectRef(sinking: label("", classes: ["error"], wrap: true))
        setVisible(errorLabel.widget, false)
        gtk_box_append(mr_box(outer), errorLabel.widget)

        form = GObjectRef(sinking: box(GTK_ORIENTATION_VERTICAL, spacing: 8))
        gtk_widget_set_vexpand(form.widget, 1)
        gtk_box_append(mr_box(outer), form.widget)

        let grid = gtk_grid_new()
        gtk_grid_set_column_spacing(mr_grid(grid), 10)
        gtk_grid_set_row_spacing(mr_grid(grid), 4)
        gtk_box_append(mr_box(form.widget), grid)
        var row: Int32 = 0
        func fieldName(_ text: String) {
            let name = label(text, classes: ["dim-label"], xalign: 1)
            gtk_widget_set_valign(name, GTK_ALIGN_BASELINE)
            gtk_grid_attach(mr_grid(grid), name, 0, row, 1, 1)
        }

        fieldName("From")
        let fromText = content.from ?? "no account"
        // Not selectable: a selectable label takes the focus, and Tab goes from To on.
        let from = label(fromText.visible, xalign: 0)
        gtk_label_set_ellipsize(mr_label(from), PANGO_ELLIPSIZE_END)
        gtk_grid_attach(mr_grid(grid), from, 1, row, 1, 1)
        row += 1
        if let reason = content.sendUnavailable {
            gtk_grid_attach(mr_grid(grid), label("Cannot send from here: \(reason.visible)", classes: ["error"], wrap: true), 1, row, 1, 1)
            row += 1
        }

        var problems: [GObjectRef] = []
        func addressField(_ name: String, _ addresses: [String]) -> GObjectRef {
            fieldName(name)
            let entry = GObjectRef(sinking: gtk_entry_new())
            gtk_widget_set_hexpand(entry.widget, 1)
            gtk_editable_set_text(mr_editable(entry.widget), AddressList.text(addresses, names: content.email.names))
            mr_set_accessible_label(entry.widget, name)
            gtk_entry_set_placeholder_text(mr_entry(entry.widget), name == "To" ? "name@example.org, …" : nil)
            gtk_grid_attach(mr_grid(grid), entry.widget, 1, row, 1, 1)
            row += 1
            let problem = GObjectRef(sinking: label("", classes: ["error", "caption"], wrap: true))
            setVisible(problem.widget, false)
            gtk_grid_attach(mr_grid(grid), problem.widget, 1, row, 1, 1)
            row += 1
            problems.append(problem)
            return entry
        }
        to = addressField("To", content.email.to)
        cc = addressField("Cc", content.email.cc)
        bcc = addressField("Bcc", content.email.bcc)

        fieldName("Subject")
        subject = GObjectRef(sinking: gtk_entry_new())
        gtk_editable_set_text(mr_editable(subject.widget), content.email.subject ?? "")
        mr_set_accessible_label(subject.widget, "Subject")
        gtk_grid_attach(mr_grid(grid), subject.widget, 1, row, 1, 1)
        row += 1
        subjectHidden = GObjectRef(sinking: label("", classes: ["warning", "caption"], wrap: true))
        setVisible(subjectHidden.widget, false)
        gtk_grid_attach(mr_grid(grid), subjectHidden.widget, 1, row, 1, 1)
        row += 1
        problemLabels = problems

        textView = GObjectRef(sinking: gtk_text_view_new())
        gtk_text_view_set_wrap_mode(mr_text_view(textView.widget), GTK_WRAP_WORD_CHAR)
        for side in [gtk_text_view_set_left_margin, gtk_text_view_set_right_margin, gtk_text_view_set_top_margin, gtk_text_view_set_bottom_margin] {
            side(mr_text_view(textView.widget), 8)
        }
        mr_set_accessible_label(textView.widget, "Message")
        buffer = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_text_view_get_buffer(mr_text_view(textView.widget))))
        pendingBody = MessageText.forEditing(content.email.body ?? "")
        let scrolled = gtk_scrolled_window_new()
        gtk_scrolled_window_set_child(mr_scrolled_window(scrolled), textView.widget)
        gtk_scrolled_window_set_has_frame(mr_scrolled_window(scrolled), 1)
        gtk_widget_set_vexpand(scrolled, 1)
        gtk_widget_set_size_request(scrolled, -1, 160)
        gtk_box_append(mr_box(form.widget), scrolled)
        bodyHidden = GObjectRef(sinking: label("", classes: ["warning", "caption"], wrap: true))
        setVisible(bodyHidden.widget, false)
        gtk_box_append(mr_box(form.widget), bodyHidden.widget)

        // Attachments: the trusted ones (ticked) and the user's own, then, apart, what
        // the link asked for (unticked; docs/design.md rule 8).
        let attachmentsHeader = box(GTK_ORIENTATION_HORIZONTAL, spacing: 8)
        gtk_box_append(mr_box(attachmentsHeader), label("Attachments", classes: ["heading"]))
        addButton = GObjectRef(sinking: button("Add…", accessibleName: "Add Attachments"))
        gtk_widget_set_hexpand(addButton.widget, 1)
        gtk_widget_set_halign(addButton.widget, GTK_ALIGN_START)
        gtk_box_append(mr_box(attachmentsHeader), addButton.widget)
        gtk_box_append(mr_box(form.widget), attachmentsHeader)
        attachmentList = GObjectRef(sinking: gtk_list_box_new())
        gtk_list_box_set_selection_mode(mr_list_box(attachmentList.widget), GTK_SELECTION_NONE)
        gtk_widget_add_css_class(attachmentList.widget, "boxed-list")
        mr_set_accessible_label(attachmentList.widget, "Attachments")
        gtk_list_box_set_placeholder(mr_list_box(attachmentList.widget),
                                     label("No attachments: add files, or drop them on this window.", classes: ["dim-label"], xalign: 0))
        gtk_box_append(mr_box(form.widget), attachmentList.widget)

        // Rule 8: the full path, unticked, and the program that asked.
        let asker = content.attachmentsRequestedBy.map { "\($0) asks to attach" } ?? "The link asks to attach"
        let requestedHeader = label(asker.visible, classes: ["heading"])
        let requestedNote = label("Only a file you tick is attached. Tick one only if you meant to send it.",
                                  classes: ["dim-label", "caption"], wrap: true)
        requestedList = GObjectRef(sinking: gtk_list_box_new())
        gtk_list_box_set_selection_mode(mr_list_box(requestedList.widget), GTK_SELECTION_NONE)
        mr_set_accessible_label(requestedList.widget, asker.visible)
        for widget in [requestedHeader, requestedNote, requestedList.widget] {
            setVisible(widget, !content.email.requestedAttachments.isEmpty)
            gtk_box_append(mr_box(form.widget), widget)
        }

        // The buttons, in the order GNOME puts them: the one that ends it well last.
        let buttons = box(GTK_ORIENTATION_HORIZONTAL, spacing: 8)
        statusLabel = GObjectRef(sinking: label("", classes: ["dim-label"]))
        setVisible(statusLabel.widget, false)
        gtk_widget_set_halign(buttons, GTK_ALIGN_END)
        gtk_box_append(mr_box(buttons), statusLabel.widget)
        handOff = content.mailProgramName.map { GObjectRef(sinking: button("Open in \($0.visible)")) }
        if let handOff { gtk_box_append(mr_box(buttons), handOff.widget) }
        cancel = GObjectRef(sinking: button("Cancel"))
        saveDraft = GObjectRef(sinking: button("Save Draft"))
        send = GObjectRef(sinking: button("Send"))
        gtk_widget_add_css_class(send.widget, "suggested-action")
        gtk_widget_set_tooltip_text(send.widget, "Send (Ctrl+Enter)")
        for widget in [cancel, saveDraft, send] { gtk_box_append(mr_box(buttons), widget.widget) }
        gtk_box_append(mr_box(outer), buttons)

        for attachment in content.email.attachments { addFile(FileRow(trusted: attachment)) }
        for path in content.email.requestedAttachments { addFile(FileRow(requested: path)) }

        connectSignals()
        addShortcuts()
        checkAddresses()
        checkSubject()
    }

    /// Shows the window, the first empty field focused (the message, once To is filled).
    /// Shows the sheet; `activationToken` (the launcher's XDG activation token or startup
    /// id) lets the desktop give it the focus the click asked for: wraps
    /// `gtk_window_set_startup_id`.
    func present(activationToken: String? = nil) {
        // Before presenting: focusing To and then moving on would leave its text selected.
        let first = entryText(to.widget).isEmpty ? to : textView
        gtk_window_set_focus(mr_window(window.widget), first.widget)
        if let activationToken, !activationToken.isEmpty {
            gtk_window_set_startup_id(mr_window(window.widget), activationToken)
        }
        gtk_window_present(mr_window(window.widget))
    }

    /// The request behind the sheet was withdrawn (the Email portal's `Request.Close`):
    /// with nothing edited the sheet ends as cancelled; with edits, what the user wrote is
    /// saved as a draft (rule 3: nothing written is lost), then the sheet ends.
    func withdraw() {
        guard !hasEnded else { return }
        question?.close()
        question = nil
        if busy { return }
        if edited {
            start(.saveDraft)
        } else {
            host.cancelled()
            end()
        }
    }

    private var data: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

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
    }

    private func connectSignals() {
        for field in [to, cc, bcc] {
            connections.connect(field, "changed", callback(onAddressChanged), data: data)
        }
        connections.connect(subject, "changed", callback(onSubjectChanged), data: data)
        connections.connect(send, "clicked", callback(onSendClicked), data: data)
        connections.connect(saveDraft, "clicked", callback(onSaveDraftClicked), data: data)
        connections.connect(cancel, "clicked", callback(onCancelClicked), data: data)
        if let handOff { connections.connect(handOff, "clicked", callback(onHandOffClicked), data: data) }
        connections.connect(addButton, "clicked", callback(onAddClicked), data: data)
        connections.connect(window, "close-request", callback(onCloseRequest), data: data)
        connections.connect(window, "map", callback(onMapped), data: data)

        // Files dropped anywhere on the sheet are attached (the user's own hand: trusted).
        let drop = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_drop_target_new(mr_file_list_type(), GDK_ACTION_COPY)))
        connections.connect(drop, "drop", callback(onDrop), data: data)
        gtk_widget_add_controller(window.widget, mr_event_controller(drop.pointer))
        controllers.append(drop)
    }

    /// Ctrl+Enter sends, Escape cancels, from anywhere in the sheet: captured before the
    /// text view would take Enter as a new line.
    private func addShortcuts() {
        let controller = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_shortcut_controller_new()))
        gtk_event_controller_set_propagation_phase(mr_event_controller(controller.pointer), GTK_PHASE_CAPTURE)
        let shortcuts: [(String, GtkShortcutFunc)] = [
            ("<Control>Return|<Control>KP_Enter", onSendShortcut),
            ("Escape", onCancelShortcut),
        ]
        for (trigger, function) in shortcuts {
            // Both transfer full into the shortcut, which the controller then owns.
            let action = gtk_callback_action_new(function, data, nil)
            let shortcut = gtk_shortcut_new(gtk_shortcut_trigger_parse_string(trigger), action)
            gtk_shortcut_controller_add_shortcut(OpaquePointer(controller.pointer), shortcut)
        }
        gtk_widget_add_controller(window.widget, mr_event_controller(controller.pointer))
        controllers.append(controller)
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
        let canSend = recipients > 0 && allValid && content.sendUnavailable == nil && !busy
        setSensitive(send.widget, canSend)
    }

    func checkSubject() {
        let text = entryText(subject.widget)
        let hidden = text.unicodeScalars.contains(where: \.isInvisibleOrControl)
        if hidden {
            gtk_label_set_text(mr_label(subjectHidden.widget),
                               "The subject holds invisible or direction-changing characters: \(text.visible)")
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
            let what = found.count == 1 ? "an invisible or direction-changing character" : "\(found.count) invisible or direction-changing characters"
            gtk_label_set_text(mr_label(bodyHidden.widget), "The message holds \(what), first on line \(found.line): \(found.shown)")
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

    // MARK: - Actions

    func requestSend() {
        guard !busy, gtk_widget_get_sensitive(send.widget) != 0 else { return }
        start(.send)
    }

    /// Runs `action` on a worker thread (SheetJob); the sheet waits, insensitive, and
    /// `finish` gets the result on the main loop.
    func start(_ action: SheetAction) {
        guard !busy, !hasEnded else { return }
        busy = true
        setVisible(errorLabel.widget, false)
        let doing: [SheetAction: String] = [.send: "Sending…", .saveDraft: "Saving…", .handOff: "Opening…"]
        gtk_label_set_text(mr_label(statusLabel.widget), doing[action] ?? "")
        setVisible(statusLabel.widget, true)
        setBusyLook(true)
        SheetJob.run(action, with: message(), host: host, for: self)
    }

    /// While an action runs, nothing can be changed. The text view is made read-only rather
    /// than insensitive: a style change makes it lay out all of a long message again.
    private func setBusyLook(_ isBusy: Bool) {
        for widget in [to, cc, bcc, subject, addButton, attachmentList, requestedList, saveDraft, cancel] {
            setSensitive(widget.widget, !isBusy)
        }
        gtk_text_view_set_editable(mr_text_view(textView.widget), isBusy ? 0 : 1)
        if let handOff { setSensitive(handOff.widget, !isBusy) }
        if isBusy { setSensitive(send.widget, false) } else { checkAddresses() }
    }

    func finish(_ action: SheetAction, _ result: SheetActionResult) {
        busy = false
        setVisible(statusLabel.widget, false)
        setBusyLook(false)
        switch result {
        case .finished:
            end()
        case .failed(let message):
            let what: [SheetAction: String] = [.send: "Not sent", .saveDraft: "Not saved", .handOff: "Not handed off"]
            gtk_label_set_text(mr_label(errorLabel.widget), "\(what[action] ?? "Failed"): \(message.visible)")
            setVisible(errorLabel.widget, true)
        }
    }

    /// Cancel, Escape or closing the window: with nothing edited the sheet ends as
    /// cancelled; with edits, the user is asked whether to keep them.
    func requestCancel() {
        guard !busy, !hasEnded else { return }
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
    /// file removed, the window destroyed, the host and the application told.
    func end() {
        guard !hasEnded else { return }
        hasEnded = true
        question?.close()
        question = nil
        chooser?.close()
        chooser = nil
        for timer in [recoveryTimer, hiddenCheckTimer, fillSource] where timer != 0 { g_source_remove(timer) }
        recoveryTimer = 0
        hiddenCheckTimer = 0
        fillSource = 0
        connections.disconnectAll()
        for row in files { row.disconnect() }
        for controller in controllers { gtk_widget_remove_controller(window.widget, mr_event_controller(controller.pointer)) }
        controllers = []
        recovery?.remove()
        gtk_window_destroy(mr_window(window.widget))
        host.sheetClosed()
        ended(self)
    }
}

func bufferPointer(_ buffer: GObjectRef) -> UnsafeMutablePointer<GtkTextBuffer> {
    buffer.pointer.assumingMemoryBound(to: GtkTextBuffer.self)
}
