internal import CGTK

/// "Save this message as a draft?" with Save / Discard / Keep Editing, as the iOS sheet
/// asks when a composer with edits is cancelled: a small modal window over the sheet.
/// Escape or closing it keeps editing.
final class SaveQuestion {
    enum Answer { case save, discard, keepEditing }

    let window: GObjectRef
    private let save: GObjectRef
    private let discard: GObjectRef
    private let keepEditing: GObjectRef
    private let shortcuts: GObjectRef
    private var connections = SignalConnections()
    private var closed = false

    init(over sheet: ComposeSheet) {
        window = GObjectRef(sinking: gtk_window_new())
        gtk_window_set_title(mr_window(window.widget), "Save this message as a draft?")
        gtk_window_set_transient_for(mr_window(window.widget), mr_window(sheet.window.widget))
        gtk_window_set_modal(mr_window(window.widget), 1)
        gtk_window_set_resizable(mr_window(window.widget), 0)
        gtk_window_set_destroy_with_parent(mr_window(window.widget), 1)

        let outer = box(GTK_ORIENTATION_VERTICAL, spacing: 12)
        for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            side(outer, 18)
        }
        gtk_box_append(mr_box(outer), label("Save this message as a draft?", classes: ["title-4"]))
        gtk_box_append(mr_box(outer), label("If you discard it, what you wrote is lost.", classes: ["dim-label"], wrap: true))
        let buttons = box(GTK_ORIENTATION_HORIZONTAL, spacing: 8)
        gtk_widget_set_halign(buttons, GTK_ALIGN_END)
        keepEditing = GObjectRef(sinking: button("Keep Editing"))
        discard = GObjectRef(sinking: button("Discard"))
        gtk_widget_add_css_class(discard.widget, "destructive-action")
        save = GObjectRef(sinking: button("Save"))
        gtk_widget_add_css_class(save.widget, "suggested-action")
        for widget in [keepEditing, discard, save] { gtk_box_append(mr_box(buttons), widget.widget) }
        gtk_box_append(mr_box(outer), buttons)
        gtk_window_set_child(mr_window(window.widget), outer)

        let data = Unmanaged.passUnretained(sheet).toOpaque()
        connections.connect(save, "clicked", callback(onQuestionSave), data: data)
        connections.connect(discard, "clicked", callback(onQuestionDiscard), data: data)
        connections.connect(keepEditing, "clicked", callback(onQuestionKeepEditing), data: data)
        connections.connect(window, "close-request", callback(onQuestionCloseRequest), data: data)
        shortcuts = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_shortcut_controller_new()))
        let action = gtk_callback_action_new(onQuestionEscape, data, nil)
        gtk_shortcut_controller_add_shortcut(OpaquePointer(shortcuts.pointer), gtk_shortcut_new(gtk_shortcut_trigger_parse_string("Escape"), action))
        gtk_widget_add_controller(window.widget, mr_event_controller(shortcuts.pointer))
        gtk_window_set_default_widget(mr_window(window.widget), save.widget)
        gtk_window_present(mr_window(window.widget))
        gtk_widget_grab_focus(save.widget)
    }

    func close() {
        guard !closed else { return }
        closed = true
        connections.disconnectAll()
        gtk_widget_remove_controller(window.widget, mr_event_controller(shortcuts.pointer))
        gtk_window_destroy(mr_window(window.widget))
    }

    deinit {
        close()
    }
}
