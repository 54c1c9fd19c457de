internal import CGTK
import MailtoCore
import MainLoop

/// "Send at", the Send button menu's "At a Chosen Time…": an `AdwMessageDialog` over the
/// sheet with one entry for the time (`HH:MM`, or `HH:MM:SS`), **Cancel** and **Schedule**;
/// Enter in the entry schedules. The time is the next one the clock shows: today, or
/// tomorrow when it has passed.
@GLibMainActor
final class SendLaterQuestion {
    static var heading: String { tr("Send at") }

    private let entry: GObjectRef
    private let dialog: SheetDialog

    init(over sheet: ComposeSheet) {
        entry = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_entry_new()))
        gtk_entry_set_placeholder_text(mr_entry(entry.widget), "14:30")
        gtk_entry_set_activates_default(mr_entry(entry.widget), 1)
        mr_set_accessible_label(entry.widget, tr("Time"))
        dialog = SheetDialog(
            over: sheet, heading: Self.heading,
            body: tr("The time to send this message at, on the 24-hour clock (14:30): today, or tomorrow once it has passed."),
            responses: [("cancel", tr("Cancel")), ("schedule", tr("Schedule"))], suggested: "schedule",
            closeResponse: "cancel", extraChild: entry.widget, onResponse: callback(onSendTimeResponse))
        gtk_widget_grab_focus(entry.widget)
    }

    /// What is typed in the entry.
    var typedTime: String { entryText(entry.widget) }

    func close() {
        dialog.close()
    }
}
