internal import CGTK
import MailtoCore
import MainLoop

// Undo send and Send Later in the sheet (docs/desktop-service.md, "Undo and Send Later").
//
// Send with `undo-send=` seconds: the host puts the message in the outbox, held, and keeps
// its claim (nobody else can send it meanwhile); the sheet stays, read-only, with a toast
// counting down and **Undo**, as Geary's composer and GNOME's own apps offer an undo where
// the user's eyes are. At zero the sheet asks the host to send it now and closes as after
// any Send. Undo gives the message back to edit, in the same window. Closing the window
// during the hold closes it (ClosedHold): the message still goes at its time, the host
// offers Undo in a notification, and that Undo shows the message again in a new sheet.
// Whatever happens to this process, the outbox has the message: it is sent once, by
// whoever owns the outbox then, and never after an Undo.

/// A Send held for Undo: the countdown's timer and the toast it updates.
@GLibMainActor
final class SendHold {
    var remaining: Int
    var timer: guint = 0
    let toast: GObjectRef
    /// The toast's `dismissed`, disconnected before the sheet dismisses it itself.
    var connections = SignalConnections()

    init(seconds: Int, toast: GObjectRef) {
        remaining = seconds
        self.toast = toast
    }
}

extension ComposeSheet {
    private var data: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The host holds the message for `seconds`: the sheet waits, read-only, with Undo.
    func beginHold(seconds: Int) {
        // The outbox has the message now: a recovery file would only bring back a copy.
        recovery?.suspend()
        guard let made = adw_toast_new(Self.holdTitle(seconds)) else { preconditionFailure("adw_toast_new returned NULL") }
        // One reference of the sheet's own; the overlay takes the one `adw_toast_new` gave.
        let toast = GObjectRef(sinking: UnsafeMutableRawPointer(made))
        adw_toast_set_button_label(made, tr("Undo"))
        adw_toast_set_action_name(made, "win.undo-send")
        adw_toast_set_priority(made, ADW_TOAST_PRIORITY_HIGH)
        // Dismissed by the sheet when the hold ends, not by a timer of its own.
        adw_toast_set_timeout(made, 0)
        let hold = SendHold(seconds: seconds, toast: toast)
        self.hold = hold
        // Its × is the user's "no need to wait": the message goes now.
        hold.connections.connect(toast, "dismissed", callback(onHoldToastDismissed), data: data)
        adw_toast_overlay_add_toast(mr_toast_overlay(toasts.pointer), made)
        nameToastButtons()
        setBusyLook(true)
        // The arrow too: nothing but Undo is offered while the message waits.
        setSensitive(sendButton.widget, false)
        setEnabled("undo-send", true)
        hold.timer = mr_timeout_add(1000, onHoldTick, data)
    }

    /// libadwaita 1.2 names a toast's button twice ("Undo Undo"), as its message dialogs'
    /// (SaveQuestion), and its close button (an icon) not at all: each toast on the overlay
    /// (its children but the sheet's content) has its buttons named once, the close button
    /// "Dismiss".
    private func nameToastButtons() {
        let content = adw_toast_overlay_get_child(mr_toast_overlay(toasts.pointer))
        var child = gtk_widget_get_first_child(toasts.widget)
        while let current = child {
            if current != content {
                SheetDialog.nameButtonsOnce(current)
                // The last of a toast's widgets is its close button.
                if let close = gtk_widget_get_last_child(current), mr_is_button(close) != 0,
                   gtk_button_get_label(mr_button(close)) == nil {
                    mr_set_own_accessible_label(close, tr("Dismiss"))
                }
            }
            child = gtk_widget_get_next_sibling(current)
        }
    }

    /// libadwaita 1.2 leaves the arrow of the Send button (an AdwSplitButton: its button, a
    /// separator, its menu button) with its class name as its accessible name: it is named
    /// "Send Later", the menu it opens, as is the toggle inside it that takes the press.
    static func nameSendLaterArrow(_ splitButton: UnsafeMutablePointer<GtkWidget>) {
        guard let arrow = gtk_widget_get_last_child(splitButton) else { return }
        mr_set_own_accessible_label(arrow, tr("Send Later"))
        if let toggle = gtk_widget_get_first_child(arrow) { mr_set_own_accessible_label(toggle, tr("Send Later")) }
    }

    static func holdTitle(_ seconds: Int) -> String {
        seconds == 1 ? tr("Sending in 1 second") : tr("Sending in %@ seconds", String(seconds))
    }

    /// One second of the hold: the toast counts down; at zero the message goes.
    func holdTick() -> Bool {
        guard let hold else { return false }
        hold.remaining -= 1
        guard hold.remaining <= 0 else {
            adw_toast_set_title(OpaquePointer(hold.toast.pointer), Self.holdTitle(hold.remaining))
            return true
        }
        hold.timer = 0
        stopHold()
        start(.releaseHold)
        return false
    }

    /// Ends the hold's countdown and toast (its message then goes, or was undone).
    func stopHold() {
        guard let hold else { return }
        self.hold = nil
        if hold.timer != 0 { g_source_remove(hold.timer) }
        hold.connections.disconnectAll()
        adw_toast_dismiss(OpaquePointer(hold.toast.pointer))
        setSensitive(sendButton.widget, true)
        setEnabled("undo-send", false)
    }

    /// The user closed the toast (its ×) during the hold: no Undo wanted, so no more wait.
    func holdToastDismissed() {
        guard hold != nil, !busy, !hasEnded else { return }
        stopHold()
        start(.releaseHold)
    }

    /// Undo (the toast's button, or the notification's through the host): the message
    /// leaves the outbox unsent and is back in the sheet to edit.
    func undoSend() {
        guard hold != nil, !busy, !hasEnded else { return }
        if let problem = RecoveryFile.takeBack(message(convertingLineBreaks: false), into: recovery, from: host) {
            toast(tr("Too late to undo: %@", problem.visible))
            return
        }
        stopHold()
        setBusyLook(false)
        show(returning: .undone)
    }

    /// The message is the user's again, in this sheet (its Undo) or in one made again
    /// after its window was closed during the hold (ClosedHold): said, and editable.
    func show(returning reason: ClosedHold.Return) {
        edited = true
        switch reason {
        case .undone:
            toast(tr("Not sent: the message is back for editing"))
        case .refused(let message):
            gtk_label_set_text(mr_label(errorLabel.widget), tr("Not sent: %@", message.visible))
            setVisible(errorLabel.widget, true)
        }
        gtk_widget_grab_focus(textView.widget)
    }

    /// The window is closed during the hold: the sheet ends, and the rest of the hold goes
    /// on without it (ClosedHold), with what it held kept to show again on Undo: the
    /// message as typed (its signature in it already), the account chosen.
    func closeDuringHold() {
        guard let hold else { return }
        var held = content
        held.email = message(convertingLineBreaks: false)
        held.signature = nil
        if let chosen = chosenAccount, let index = content.accounts.firstIndex(where: { $0.name == chosen }) {
            held.fromIndex = index
        }
        let closed = ClosedHold(content: held, sending: message(), account: chosenAccount, host: host, recovery: recovery,
                                remaining: hold.remaining)
        host.heldWindowClosed()
        end(handingOver: closed)
    }

    // MARK: - Send Later

    func sendLater(_ choice: SendLaterChoice) {
        guard !busy, hold == nil, let send = actions["send-later"],
              g_action_get_enabled(mr_action(OpaquePointer(send.pointer))) != 0 else { return }
        start(.sendLater(choice))
    }

    /// "Send at a Chosen Time…": asks for the time.
    func askSendTime() {
        guard timeQuestion == nil, !busy, hold == nil else { return }
        timeQuestion = SendLaterQuestion(over: self)
    }

    func answerSendTime(_ text: String?) {
        timeQuestion?.close()
        timeQuestion = nil
        guard let text else { return }
        guard let choice = SendLaterChoice(time: text.trimmingSpaces()) else {
            toast(tr("Not a time: %@ (write it as 14:30)", text.visible))
            return
        }
        sendLater(choice)
    }
}

// MARK: - Callbacks

private func sheet(_ data: UnsafeMutableRawPointer?) -> ComposeSheet? {
    data.map { Unmanaged<ComposeSheet>.fromOpaque($0).takeUnretainedValue() }
}

func onHoldTick(_ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        (sheet(data)?.holdTick() ?? false) ? 1 : 0
    }
}

func onHoldToastDismissed(_ toast: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.holdToastDismissed()
    }
}

func onUndoSendAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.undoSend()
    }
}

/// `win.send-later`: `hour` or `tomorrow`.
func onSendLaterAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(parameter, data) { parameter, data in
        guard let sheet = sheet(data), let which = takeString(mr_variant_dup_string(parameter)) else { return }
        sheet.sendLater(which == "tomorrow" ? .tomorrowMorning : .inOneHour)
    }
}

func onSendAtAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.askSendTime()
    }
}

/// AdwMessageDialog::response of "Send at": `schedule` with the time typed.
func onSendTimeResponse(_ dialog: UnsafeMutableRawPointer?, _ response: UnsafePointer<CChar>?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(response, data) { response, data in
        guard let sheet = sheet(data) else { return }
        let answer = response.map { String(cString: $0) } ?? ""
        sheet.answerSendTime(answer == "schedule" ? sheet.timeQuestion?.typedTime : nil)
    }
}
