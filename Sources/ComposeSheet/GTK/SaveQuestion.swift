internal import CGTK
import MailtoCore
import MainLoop

/// "Save this message as a draft?" with Keep Editing, Discard and Save, as the iOS sheet
/// asks when a composer with edits is cancelled: an `AdwMessageDialog` over the sheet.
/// Escape or closing it keeps editing (its close response).
@GLibMainActor
final class SaveQuestion {
    enum Answer { case save, discard, keepEditing }

    static var heading: String { tr("Save this message as a draft?") }

    /// Internal: the sheet's in-process tests answer it (Tests/ComposeSheetTests/SheetHarness.swift).
    let dialog: SheetDialog

    init(over sheet: ComposeSheet) {
        dialog = SheetDialog(
            over: sheet, heading: Self.heading, body: tr("If you discard it, what you wrote is lost."),
            responses: [("keep", tr("Keep Editing")), ("discard", tr("Discard")), ("save", tr("Save"))],
            suggested: "save", destructive: "discard", closeResponse: "keep", onResponse: callback(onQuestionResponse))
    }

    func close() {
        dialog.close()
    }
}
