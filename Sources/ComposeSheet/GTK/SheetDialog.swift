internal import CGTK
import MailtoCore
import MainLoop

/// An `AdwMessageDialog` over a sheet with its responses, and the one owner of it: its
/// handler connected to `response` with the sheet as user data, disconnected and the dialog
/// destroyed in `close()` (SaveQuestion, SendLaterQuestion).
@GLibMainActor
final class SheetDialog {
    let dialog: GObjectRef
    private var connections = SignalConnections()
    private var closed = false

    /// `responses`: id and label, in order; `suggested` and `destructive` name their looks,
    /// `closeResponse` what Escape and closing it answer.
    init(
        over sheet: ComposeSheet, heading: String, body: String, responses: [(String, String)], suggested: String,
        destructive: String? = nil, closeResponse: String, extraChild: UnsafeMutablePointer<GtkWidget>? = nil,
        onResponse: GCallback
    ) {
        // Wraps adw_message_dialog_new (transfer none: a toplevel GTK owns; referenced here).
        dialog = GObjectRef(sinking: UnsafeMutableRawPointer(adw_message_dialog_new(mr_window(sheet.window.widget), heading, body)))
        let message = mr_message_dialog(dialog.pointer)
        // The window's title too: a screen reader names the dialog by it.
        gtk_window_set_title(mr_window(dialog.widget), heading)
        if let extraChild { adw_message_dialog_set_extra_child(message, extraChild) }
        for (id, text) in responses { adw_message_dialog_add_response(message, id, text) }
        if let destructive { adw_message_dialog_set_response_appearance(message, destructive, ADW_RESPONSE_DESTRUCTIVE) }
        adw_message_dialog_set_response_appearance(message, suggested, ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(message, suggested)
        adw_message_dialog_set_close_response(message, closeResponse)
        connections.connect(dialog, "response", onResponse, data: Unmanaged.passUnretained(sheet).toOpaque())
        gtk_window_present(mr_window(dialog.widget))
        Self.nameButtonsOnce(dialog.widget)
    }

    /// libadwaita 1.2 (Debian 12) names each response button twice ("Discard Discard": its
    /// label and the label inside it), which a screen reader then speaks: each button is
    /// given its label as its name, found by walking the dialog's widgets (and a toast's).
    static func nameButtonsOnce(_ widget: UnsafeMutablePointer<GtkWidget>) {
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

    isolated deinit {
        close()
    }
}
