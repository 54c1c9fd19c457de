internal import CGTK

extension SheetApplication {
    /// Opens the chooser once the application has started (or now, when it has): how a
    /// clicked link goes, asked once. `answered` hears what the person did, on the main
    /// thread, while the chooser is still on screen: a sheet opened then keeps a one-sheet
    /// application running. Only where `showsSheets`. The handle withdraws it (the Email
    /// portal's `Request.Close`: the chooser ends as Cancel).
    @discardableResult
    public func openChooser(_ content: ChooserContent, activationToken: String? = nil,
                            answered: @escaping (ChooserAnswer) -> Void) -> SheetHandle {
        precondition(showsSheets, "a chooser opened in an application without GTK")
        let handle = SheetHandle()
        let show = { [unowned self] in
            let chooser = ChooserWindow(application: gtkApplication, content: content, answered: answered,
                                        ended: { [unowned self] chooser in self.choosers.removeAll { $0 === chooser } })
            choosers.append(chooser)
            handle.chooser = chooser
            chooser.present(activationToken: activationToken)
        }
        if started { show() } else { waitingChoosers.append(show) }
        return handle
    }
}
