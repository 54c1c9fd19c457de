internal import CGTK
import MailtoCore

/// "Send at", the Send button menu's "Send at a Chosen Time…": an `AdwMessageDialog` over
/// the sheet with one entry for the time (`HH:MM`, or `HH:MM:SS`), **Cancel** and
/// **Schedule**; Enter in the entry schedules. The time is the next one the clock shows:
/// today, or tomorrow when it has passed.
final class SendLaterQuestion {
    static var heading: String { tr("Send at") }

    let dialog: GObjectRef
    private let entry: GObjectRef
    private var connections = SignalConnections()
    private var closed = false

    init(over sheet: ComposeSheet) {
        // Wraps adw_message_dialog_new (transfer none: a toplevel GTK owns; referenced here).
        dialog = GObjectRef(sinking: UnsafeMutableRawPointer(adw_message_dialog_new(
            mr_window(sheet.window.widget), Self.heading,
            tr("The time to send this message at, on the 24-hour clock (14:30): today, or tomorrow once it has passed."))))
        let message = mr_message_dialog(dialog.pointer)
        gtk_window_set_title(mr_window(dialog.widget), Self.heading)
        entry = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_entry_new()))
        gtk_entry_set_placeholder_text(mr_entry(entry.widget), "14:30")
        gtk_entry_set_activates_default(mr_entry(entry.widget), 1)
        mr_set_accessible_label(entry.widget, tr("Time"))
        adw_message_dialog_set_extra_child(message, entry.widget)
        for (id, text) in [("cancel", tr("Cancel")), ("schedule", tr("Schedule"))] {
            adw_message_dialog_add_response(message, id, text)
        }
        adw_message_dialog_set_response_appearance(message, "schedule", ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(message, "schedule")
        adw_message_dialog_set_close_response(message, "cancel")
        connections.connect(dialog, "response", callback(onSendTimeResponse), data: Unmanaged.passUnretained(sheet).toOpaque())
        gtk_window_present(mr_window(dialog.widget))
        SaveQuestion.nameButtonsOnce(dialog.widget)
        gtk_widget_grab_focus(entry.widget)
    }

    /// What is typed in the entry.
    var typedTime: String { entryText(entry.widget) }

    func close() {
        guard !closed else { return }
        closed = true
        connections.disconnectAll()
        // As SaveQuestion: not transient for the sheet before the sheet's window may go.
        gtk_window_set_transient_for(mr_window(dialog.widget), nil)
        gtk_window_destroy(mr_window(dialog.widget))
    }

    deinit {
        close()
    }
}
