internal import CGTK
import MailtoCore
import MainLoop

/// "Send without Budget.odt?": asked when Send is pressed while a file the link asked for,
/// one that could be attached, is not ticked. Issue 33: where nothing proves which program
/// asked (a LibreOffice that left no trace, a senddoc run by hand), "Email Document"'s
/// document is listed unticked like a web page's file; the person chose to send it, and a
/// message sent without it, without a word, is the one outcome they did not ask for.
/// Cancel (also Escape) goes back to the sheet, where a tick attaches it.
@GLibMainActor
final class SendWithoutQuestion {
    /// Internal: the sheet's in-process tests answer it (Tests/ComposeSheetTests/SheetHarness.swift).
    let dialog: SheetDialog

    init(over sheet: ComposeSheet, names: [String]) {
        let listed = names.joined(separator: ", ")
        dialog = SheetDialog(
            over: sheet, heading: tr("Send without %@?", listed),
            body: trn("The link asked to attach it, and it is not ticked, so it is not attached: nothing shows that a program on this computer handed it over. Tick it to send it.",
                      "The link asked to attach them, and they are not ticked, so they are not attached: nothing shows that a program on this computer handed them over. Tick one to send it.",
                      names.count),
            responses: [("cancel", tr("Cancel")), ("send", tr("Send Without It"))],
            suggested: "cancel", closeResponse: "cancel", onResponse: callback(onSendWithoutResponse))
    }

    func close() {
        dialog.close()
    }
}

extension ComposeSheet {
    /// The files the link asked for that could be attached and are not ticked, by name.
    var untickedRequests: [String] {
        files.filter { $0.origin == .requested && !$0.isTicked && $0.attachment != nil }.compactMap { row in
            row.path.map { LocalPath.display($0).visible.split(separator: "/").last.map(String.init) ?? $0 }
        }
    }

    /// Send, asked first when it would go without a file the link asked for.
    func requestSendAskingFirst() {
        let unticked = untickedRequests
        guard !unticked.isEmpty else { return requestSend() }
        guard untickedQuestion == nil else { return }
        untickedQuestion = SendWithoutQuestion(over: self, names: unticked)
    }

    func answerSendWithout(send: Bool) {
        untickedQuestion?.close()
        untickedQuestion = nil
        if send { requestSend() }
    }
}

/// AdwMessageDialog::response of "Send without …?".
func onSendWithoutResponse(_ dialog: UnsafeMutableRawPointer?, _ response: UnsafePointer<CChar>?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(response, data) { response, data in
        let sheet = data.map { Unmanaged<ComposeSheet>.fromOpaque($0).takeUnretainedValue() }
        sheet?.answerSendWithout(send: response.map { String(cString: $0) } == "send")
    }
}
