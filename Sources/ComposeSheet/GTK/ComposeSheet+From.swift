internal import CGTK
import MailtoCore
import MainLoop

// The sheet's From as a chooser of every account that can send (a menu button in place of
// the From label when there is more than one, its menu one radio item per account: the
// stateful window action `win.from`, whose state is the account's name), and "Ask How to
// Send Each Time", which forgets the way the chooser's Always kept.

/// The From chooser's button and action, with one reference each (the grid and the
/// window's action map hold their own).
@GLibMainActor
final class FromChooser {
    let button: GObjectRef
    let action: GObjectRef
    /// The account chosen: its name.
    var chosen: String

    init(button: GObjectRef, action: GObjectRef, chosen: String) {
        self.button = button
        self.action = action
        self.chosen = chosen
    }
}

extension ComposeSheet {
    /// The From menu button, in the grid cell of the From label, which it hides: its label
    /// the account chosen (first the one last used, `content.fromIndex`), its menu every
    /// account as a radio item of `win.from`. Wraps `gtk_menu_button_new` (floating: the grid
    /// owns it) and `g_simple_action_new_stateful` (transfer full, adopted).
    func makeFromChooser(in fields: GObjectRef, replacing label: GObjectRef) -> FromChooser {
        let first = content.accounts[max(0, min(content.fromIndex, content.accounts.count - 1))]
        let menu = g_menu_new()
        for account in content.accounts {
            // A menu item's underscore marks its mnemonic.
            let item = g_menu_item_new(account.readable.visible.split(separator: "_", omittingEmptySubsequences: false).joined(separator: "__"), nil)
            g_menu_item_set_action_and_target_value(item, "win.from", mr_variant_string(account.name))
            g_menu_append_item(menu, item)
            g_object_unref(UnsafeMutableRawPointer(item))
        }
        let made: UnsafeMutablePointer<GtkWidget> = gtk_menu_button_new()
        gtk_menu_button_set_menu_model(mr_menu_button(made), mr_menu_model(UnsafeMutableRawPointer(menu)))
        g_object_unref(UnsafeMutableRawPointer(menu))
        gtk_menu_button_set_label(mr_menu_button(made), first.readable.visible)
        gtk_widget_set_halign(made, GTK_ALIGN_START)
        mr_set_accessible_label(made, tr("From"))
        gtk_widget_set_tooltip_text(made, tr("Send from another account"))
        let button = GObjectRef(sinking: UnsafeMutableRawPointer(made))
        setVisible(label.widget, false)
        gtk_grid_attach(mr_grid(fields.widget), made, 1, 0, 2, 1)

        guard let action = mr_stateful_string_action_new("from", first.name) else {
            preconditionFailure("g_simple_action_new_stateful returned NULL")
        }
        let chooser = FromChooser(button: button, action: GObjectRef(adopting: UnsafeMutableRawPointer(action)), chosen: first.name)
        connections.connect(chooser.action, "activate", callback(onFromAction), data: Unmanaged.passUnretained(self).toOpaque())
        g_action_map_add_action(mr_action_map_of(window.pointer), mr_action(action))
        return chooser
    }

    /// `win.from`: the account `name` is the one the message goes out from.
    func chooseFrom(_ name: String) {
        guard let fromChooser, let account = content.accounts.first(where: { $0.name == name }) else { return }
        fromChooser.chosen = name
        g_simple_action_set_state(mr_simple_action(fromChooser.action.pointer), mr_variant_string(name))
        gtk_menu_button_set_label(mr_menu_button(fromChooser.button.widget), account.readable.visible)
    }

    /// The account the message goes out from: the From chooser's, else the one shown
    /// (`nil`: the default account).
    var chosenAccount: String? {
        fromChooser?.chosen ?? content.accounts.first?.name
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

func onFromAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(parameter, data) { parameter, data in
        guard let data, let name = takeString(mr_variant_dup_string(parameter)) else { return }
        Unmanaged<ComposeSheet>.fromOpaque(data).takeUnretainedValue().chooseFrom(name)
    }
}

func onForgetWayAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        guard let data else { return }
        Unmanaged<ComposeSheet>.fromOpaque(data).takeUnretainedValue().forgetWay()
    }
}
