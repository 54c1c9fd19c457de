internal import CGTK
import MailtoCore

// The sheet's From as a chooser of every account that can send (a GtkDropDown in place of
// the From label when there is more than one), and "Ask How to Send Each Time", which
// forgets the way the chooser's Always kept.

extension ComposeSheet {
    /// The From drop-down, in the grid cell of the From label, which it hides: one entry per
    /// account, the one last used (`content.fromIndex`) shown first. Wraps
    /// `gtk_drop_down_new_from_strings` (floating: the grid owns it, and the returned
    /// reference is the sheet's).
    func makeFromChooser(in fields: GObjectRef, replacing label: GObjectRef) -> GObjectRef {
        let names = content.accounts.map { g_strdup($0.readable.visible) }
        defer { for name in names { g_free(name) } }
        let pointers = names.map { UnsafePointer($0) } + [nil]
        let made: UnsafeMutablePointer<GtkWidget> = pointers.withUnsafeBufferPointer { gtk_drop_down_new_from_strings($0.baseAddress) }
        gtk_drop_down_set_selected(mr_drop_down(made), guint(max(0, min(content.fromIndex, content.accounts.count - 1))))
        gtk_widget_set_hexpand(made, 1)
        mr_set_accessible_label(made, tr("From"))
        let chooser = GObjectRef(sinking: UnsafeMutableRawPointer(made))
        setVisible(label.widget, false)
        gtk_grid_attach(mr_grid(fields.widget), made, 1, 0, 2, 1)
        return chooser
    }

    /// The account the message goes out from: the From chooser's, else the one shown
    /// (`nil`: the default account).
    var chosenAccount: String? {
        guard let fromChooser else { return content.accounts.first?.name }
        let index = Int(gtk_drop_down_get_selected(mr_drop_down(fromChooser.widget)))
        return content.accounts.indices.contains(index) ? content.accounts[index].name : nil
    }

    /// "Ask How to Send Each Time": the next click asks again; said in a toast.
    func forgetWay() {
        if let problem = host.forgetWay() {
            toast(tr("Not changed: %@", problem.visible))
            return
        }
        setEnabled("forget-way", false)
        toast(tr("Links will ask how to send again."))
    }
}

func onForgetWayAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    Unmanaged<ComposeSheet>.fromOpaque(data).takeUnretainedValue().forgetWay()
}
