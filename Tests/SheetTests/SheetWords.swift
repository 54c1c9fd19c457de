/// What the sheet calls its window, its fields and its Send button in the language of a
/// locale, for the driver (Servers/sheet-driver.py finds them by the names a screen reader
/// speaks): po/de.po's words under German; English where this tree has no catalog
/// (Turkish, Persian).
struct SheetWords {
    var newTitle = "New Message"
    var titlePrefix = "Message to "
    var send = "Send"
    var to = "To"
    var subject = "Subject"
    var message = "Message"

    init(_ locale: String) {
        guard locale.hasPrefix("de_") else { return }
        newTitle = "Neue Nachricht"
        titlePrefix = "Nachricht an "
        send = "Senden"
        to = "An"
        subject = "Betreff"
        message = "Nachricht"
    }

    /// The driver's first step: these words for its wait-sheet, wait-sheets and wait-gone.
    var driverStep: String { "sheet-words:\(newTitle):\(titlePrefix):\(send)" }
}
