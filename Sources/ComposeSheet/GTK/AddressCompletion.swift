internal import CGTK
import MailtoCore
import MainLoop

/// Completion of one address field (To, Cc, Bcc): as one types an address, a popover under
/// the field lists the people it may be (`Asa Berg <asa@example.org>`): from the history
/// of addresses sent to, most used first, then from the desktop's address books
/// (`SheetContent.lookUpContacts`, off the main loop). Down and Up choose, Return or Tab
/// takes one, Escape closes the list; a click takes one; a history row can be forgotten.
/// The rows are labels, so that a screen reader reads them (GTK 4.8's GtkEntryCompletion
/// shows rows AT-SPI cannot read).
@GLibMainActor
final class AddressCompletion {
    private unowned let sheet: ComposeSheet
    let entry: GObjectRef
    private let popover: GObjectRef
    private let list: GObjectRef
    private let keys: GObjectRef
    private var connections = SignalConnections()
    private var rows: [(row: GObjectRef, suggestion: AddressSuggestion, forget: GObjectRef?)] = []
    /// The token being completed when the last lookup was asked: a late answer for
    /// another token is dropped.
    private var asked = ""
    /// Set while the field's text is being replaced by `take`: not a change to complete.
    private var taking = false

    init(sheet: ComposeSheet, entry: GObjectRef) {
        self.sheet = sheet
        self.entry = entry
        popover = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_popover_new()))
        gtk_widget_set_parent(popover.widget, entry.widget)
        gtk_popover_set_autohide(mr_popover(popover.pointer), 0)
        gtk_popover_set_has_arrow(mr_popover(popover.pointer), 0)
        gtk_popover_set_position(mr_popover(popover.pointer), GTK_POS_BOTTOM)
        list = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_list_box_new()))
        gtk_list_box_set_selection_mode(mr_list_box(list.widget), GTK_SELECTION_SINGLE)
        mr_set_accessible_label(list.widget, tr("Suggestions"))
        gtk_popover_set_child(mr_popover(popover.pointer), list.widget)
        keys = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_event_controller_key_new()))
        gtk_event_controller_set_propagation_phase(mr_event_controller(keys.pointer), GTK_PHASE_CAPTURE)
        let data = Unmanaged.passUnretained(self).toOpaque()
        connections.connect(entry, "changed", callback(onCompletionFieldChanged), data: data)
        connections.connect(keys, "key-pressed", callback(onCompletionKey), data: data)
        connections.connect(list, "row-activated", callback(onCompletionRowActivated), data: data)
        gtk_widget_add_controller(entry.widget, mr_event_controller(keys.pointer))
    }

    var isShown: Bool { gtk_widget_get_visible(popover.widget) != 0 }

    /// The address being typed: what follows the field's last comma.
    private var token: String {
        let text = entryText(entry.widget)
        let last = text.split(separator: ",", omittingEmptySubsequences: false).last.map(String.init) ?? text
        return last.trimmingSpaces()
    }

    /// The field changed: the history's matches now, the address books' when they answer.
    func changed() {
        guard !taking else { return }
        let typed = token
        asked = typed
        guard !typed.isEmpty else { return hide() }
        let history = AddressSuggestion.matching(typed, in: sheet.content.recentRecipients)
        show(history)
        guard let lookUp = sheet.content.lookUpContacts else { return }
        // Off the main loop: a D-Bus call to EDS may take a moment.
        Background.run({ lookUp(typed) }, then: { [self] found in arrived(found, for: typed) })
    }

    /// The address books' answer for `typed`, after the history's rows.
    func arrived(_ found: [AddressSuggestion], for typed: String) {
        guard typed == asked, !sheet.hasEnded else { return }
        let shown = rows.map(\.suggestion)
        let known = Set(shown.map { $0.address.lowercased() })
        show(shown + found.filter { !known.contains($0.address.lowercased()) })
    }

    private func show(_ suggestions: [AddressSuggestion]) {
        for (row, _, _) in rows { gtk_list_box_remove(mr_list_box(list.widget), row.widget) }
        rows = []
        for suggestion in suggestions.prefix(8) {
            let line = box(GTK_ORIENTATION_HORIZONTAL, spacing: 8)
            let text = label(suggestion.readable.visible, xalign: 0)
            gtk_widget_set_hexpand(text, 1)
            gtk_box_append(mr_box(line), text)
            var forget: GObjectRef?
            if suggestion.fromHistory {
                let button = GObjectRef(sinking: gtk_button_new_from_icon_name("window-close-symbolic"))
                gtk_widget_add_css_class(button.widget, "flat")
                gtk_widget_set_tooltip_text(button.widget, tr("Forget this address"))
                mr_set_accessible_label(button.widget, tr("Forget %@", suggestion.address.visible))
                gtk_box_append(mr_box(line), button.widget)
                connections.connect(button, "clicked", callback(onCompletionForget), data: Unmanaged.passUnretained(self).toOpaque())
                forget = button
            }
            let row = GObjectRef(sinking: gtk_list_box_row_new())
            gtk_list_box_row_set_child(mr_list_box_row(row.widget), line)
            for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] { side(line, 4) }
            for side in [gtk_widget_set_margin_start, gtk_widget_set_margin_end] { side(line, 8) }
            mr_set_accessible_label(row.widget, suggestion.readable.visible)
            gtk_list_box_append(mr_list_box(list.widget), row.widget)
            rows.append((row, suggestion, forget))
        }
        guard !rows.isEmpty else { return hide() }
        gtk_widget_set_size_request(popover.widget, gtk_widget_get_width(entry.widget), -1)
        gtk_popover_popup(mr_popover(popover.pointer))
    }

    func hide() {
        guard isShown else { return }
        gtk_popover_popdown(mr_popover(popover.pointer))
    }

    /// The person closed the list (or took a row): the address books' answer to what they
    /// typed, still on its way, must not open it again.
    private func dismiss() {
        asked = ""
        hide()
    }

    /// Down, Up, Return, Tab and Escape while the list is shown; `true`: the key was taken.
    func key(_ keyval: guint) -> Bool {
        guard isShown, !rows.isEmpty else { return false }
        let selected = gtk_list_box_get_selected_row(mr_list_box(list.widget))
        let index = rows.firstIndex { $0.row.pointer == UnsafeMutableRawPointer(selected) }
        switch Int32(keyval) {
        case GDK_KEY_Down, GDK_KEY_KP_Down:
            select(index.map { min($0 + 1, rows.count - 1) } ?? 0)
        case GDK_KEY_Up, GDK_KEY_KP_Up:
            select(index.map { max($0 - 1, 0) } ?? rows.count - 1)
        case GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_Tab:
            guard let index else {
                // Nothing chosen: the list goes, the key does what it does.
                dismiss()
                return false
            }
            take(rows[index].suggestion)
        case GDK_KEY_Escape:
            dismiss()
        default:
            return false
        }
        return true
    }

    private func select(_ index: Int) {
        gtk_list_box_select_row(mr_list_box(list.widget), mr_list_box_row(rows[index].row.widget))
    }

    func activated(_ row: UnsafeMutableRawPointer?) {
        guard let found = rows.first(where: { $0.row.pointer == row }) else { return }
        take(found.suggestion)
    }

    /// Puts `suggestion` in place of the address being typed, a comma after it, and the
    /// cursor at the end, ready for the next.
    private func take(_ suggestion: AddressSuggestion) {
        let text = entryText(entry.widget)
        var parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
        parts.removeLast()
        parts.append(suggestion.readable)
        taking = true
        gtk_editable_set_text(mr_editable(entry.widget), parts.filter { !$0.isEmpty }.joined(separator: ", ") + ", ")
        gtk_editable_set_position(mr_editable(entry.widget), -1)
        taking = false
        dismiss()
    }

    func forget(_ button: UnsafeMutableRawPointer?) {
        guard let index = rows.firstIndex(where: { $0.forget?.pointer == button }) else { return }
        sheet.forgetRecipient(rows[index].suggestion.address)
        gtk_list_box_remove(mr_list_box(list.widget), rows[index].row.widget)
        rows.remove(at: index)
        if rows.isEmpty { hide() }
    }

    /// Disconnects everything and lets the popover go, before the field does.
    func detach() {
        connections.disconnectAll()
        gtk_widget_remove_controller(entry.widget, mr_event_controller(keys.pointer))
        gtk_widget_unparent(popover.widget)
    }
}

private func completion(_ data: UnsafeMutableRawPointer?) -> AddressCompletion? {
    data.map { Unmanaged<AddressCompletion>.fromOpaque($0).takeUnretainedValue() }
}

func onCompletionFieldChanged(_ editable: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        completion(data)?.changed()
    }
}

/// GtkEventControllerKey::key-pressed: the key's value, its code, the modifiers.
func onCompletionKey(_ controller: UnsafeMutableRawPointer?, _ keyval: guint, _ keycode: guint, _ state: GdkModifierType,
                     _ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        (completion(data)?.key(keyval) ?? false) ? 1 : 0
    }
}

func onCompletionRowActivated(_ list: UnsafeMutableRawPointer?, _ row: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(row, data) { row, data in
        completion(data)?.activated(row)
    }
}

func onCompletionForget(_ button: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(button, data) { button, data in
        completion(data)?.forget(button)
    }
}
