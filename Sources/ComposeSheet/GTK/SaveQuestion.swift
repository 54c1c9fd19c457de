internal import CGTK
import MailtoCore

/// "Save this message as a draft?" with Keep Editing, Discard and Save, as the iOS sheet
/// asks when a composer with edits is cancelled: an `AdwMessageDialog` over the sheet.
/// Escape or closing it keeps editing (its close response).
final class SaveQuestion {
    enum Answer { case save, discard, keepEditing }

    static var heading: String { tr("Save this message as a draft?") }

    let dialog: GObjectRef
    private var connections = SignalConnections()
    private var closed = false

    init(over sheet: ComposeSheet) {
        // Wraps adw_message_dialog_new (transfer none: a toplevel GTK owns; referenced here).
        dialog = GObjectRef(sinking: UnsafeMutableRawPointer(
            adw_message_dialog_new(mr_window(sheet.window.widget), Self.heading, tr("If you discard it, what you wrote is lost."))))
        let message = mr_message_dialog(dialog.pointer)
        // The window's title too: a screen reader names the dialog by it.
        gtk_window_set_title(mr_window(dialog.widget), Self.heading)
        for (id, text) in [("keep", tr("Keep Editing")), ("discard", tr("Discard")), ("save", tr("Save"))] {
            adw_message_dialog_add_response(message, id, text)
        }
        adw_message_dialog_set_response_appearance(message, "discard", ADW_RESPONSE_DESTRUCTIVE)
        adw_message_dialog_set_response_appearance(message, "save", ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(message, "save")
        adw_message_dialog_set_close_response(message, "keep")
        connections.connect(dialog, "response", callback(onQuestionResponse), data: Unmanaged.passUnretained(sheet).toOpaque())
        gtk_window_present(mr_window(dialog.widget))
        Self.nameButtonsOnce(dialog.widget)
    }

    /// libadwaita 1.2 (Debian 12) names each response button twice ("Discard Discard": its
    /// label and the label inside it), which a screen reader then speaks: each button is
    /// given its label as its name, found by walking the dialog's widgets.
    private static func nameButtonsOnce(_ widget: UnsafeMutablePointer<GtkWidget>) {
        if mr_is_button(widget) != 0, let text = gtk_button_get_label(mr_button(widget)) {
            mr_set_own_accessible_label(widget, text)
        }
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            nameButtonsOnce(current)
            child = gtk_widget_get_next_sibling(current)
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        connections.disconnectAll()
        // Not transient for the sheet any more before the sheet's window may go (the sheet
        // ends right after an answer): a dialog finalized after its parent would disconnect
        // its handlers from freed memory.
        gtk_window_set_transient_for(mr_window(dialog.widget), nil)
        gtk_window_destroy(mr_window(dialog.widget))
    }

    deinit {
        close()
    }
}
