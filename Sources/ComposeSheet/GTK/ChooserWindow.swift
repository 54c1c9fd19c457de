internal import CGTK
import MailtoCore
import MainLoop

/// The chooser (`UI/chooser.ui`): a clicked link that can go several ways asks once, with a
/// radio button per way that can start now, the first chosen; **Just this once** or
/// **Always**. Cancel or closing the window does nothing with the message. Its answer goes
/// to `answered` on the main thread, before the window goes, so that a sheet it opens is on
/// screen before the chooser leaves (a one-window application would otherwise quit between
/// the two).
///
/// Ownership as the sheet's (docs/style.md habits 2 and 14): a reference to each object it
/// touches, its handlers disconnected in `end()` before the window is destroyed.
@GLibMainActor
final class ChooserWindow {
    let content: ChooserContent
    private let answered: (ChooserAnswer) -> Void
    private var connections = SignalConnections()
    private var choices: [GObjectRef] = []
    private let once: GObjectRef
    private let always: GObjectRef
    private let cancel: GObjectRef
    private var hasEnded = false
    /// Escape closes the window (its close request is Cancel); Return on a way takes it.
    private let keys: GObjectRef
    private let ended: (ChooserWindow) -> Void
    // Declared last, and so released last (see ComposeSheet.window).
    let window: GObjectRef

    init(application: UnsafeMutablePointer<GtkApplication>, content: ChooserContent,
         answered: @escaping (ChooserAnswer) -> Void, ended: @escaping (ChooserWindow) -> Void) {
        self.content = content
        self.answered = answered
        self.ended = ended
        let ui = UIBuilder(Embedded.chooser)
        window = ui.object("window")
        gtk_window_set_application(mr_window(window.widget), application)
        once = ui.object("once")
        always = ui.object("always")
        cancel = ui.object("cancel")
        // Escape cancels (closing is Cancel). Trigger and action transfer full into the
        // shortcut, which the controller then owns.
        keys = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_shortcut_controller_new()))
        gtk_shortcut_controller_add_shortcut(OpaquePointer(keys.pointer),
                                             gtk_shortcut_new(gtk_shortcut_trigger_parse_string("Escape"), gtk_named_action_new("window.close")))
        gtk_widget_add_controller(window.widget, mr_event_controller(keys.pointer))
        let to = content.requestingApplication.map { tr("%@ asks to send a message.", $0.visible) + " " } ?? ""
        let about = content.recipients.isEmpty ? tr("A link asks to write a message.")
            : content.subject.map { tr("A link asks to write to %@, subject “%@”.", content.recipients.visible, $0.visible) }
            ?? tr("A link asks to write to %@.", content.recipients.visible)
        let intro = content.requestingApplication == nil ? about
            : content.recipients.isEmpty ? "" : tr("It is to %@.", content.recipients.visible)
        gtk_label_set_text(mr_label(ui.object("intro").widget), to + intro + "\n" + tr("How should the message go?"))
        let note = ui.object("note")
        if let application = content.requestingApplication {
            gtk_label_set_text(mr_label(note.widget), tr(
                "Always: what %@ sends goes this way from now on, without asking. mailto-route route reset makes it ask again.",
                application.visible))
        }
        if !content.canRemember { setVisible(note.widget, false) }

        let list = ui.object("ways")
        mr_set_accessible_label(list.widget, tr("Ways to send"))
        var first: UnsafeMutablePointer<GtkCheckButton>?
        for way in content.ways {
            let choice: UnsafeMutablePointer<GtkWidget> = gtk_check_button_new_with_label(way.title.visible)
            // One group: radio buttons, one chosen at a time.
            if let first { gtk_check_button_set_group(mr_check_button(choice), first) } else { first = mr_check_button(choice) }
            if !way.detail.isEmpty { mr_set_accessible_description(choice, way.detail.visible) }
            gtk_box_append(mr_box(list.widget), choice)
            if !way.detail.isEmpty {
                let detail = label(way.detail.visible, classes: ["dim-label", "caption"], wrap: true)
                gtk_widget_set_margin_start(detail, 28)
                gtk_box_append(mr_box(list.widget), detail)
            }
            choices.append(GObjectRef(sinking: UnsafeMutableRawPointer(choice)))
        }
        if choices.indices.contains(content.preselected) {
            gtk_check_button_set_active(mr_check_button(choices[content.preselected].widget), 1)
        } else if let first {
            gtk_check_button_set_active(first, 1)
        }
        let data = Unmanaged.passUnretained(self).toOpaque()
        for choice in choices { connections.connect(choice, "toggled", callback(onChooserToggled), data: data) }
        // Return on a way takes it, once: a radio button takes Return (and Space) for itself,
        // so the window's default, "Just this once", would not see it. Seen before the focused
        // widget, and only while a way has the focus (on a button, Return is that button's).
        gtk_event_controller_set_propagation_phase(mr_event_controller(keys.pointer), GTK_PHASE_CAPTURE)
        gtk_shortcut_controller_add_shortcut(OpaquePointer(keys.pointer), gtk_shortcut_new(
            gtk_shortcut_trigger_parse_string("Return|KP_Enter"), gtk_callback_action_new(onChooserReturn, data, nil)))
        connections.connect(once, "clicked", callback(onChooserOnce), data: data)
        connections.connect(always, "clicked", callback(onChooserAlways), data: data)
        connections.connect(cancel, "clicked", callback(onChooserCancel), data: data)
        connections.connect(window, "close-request", callback(onChooserCloseRequest), data: data)
        updateButtons()
    }

    /// Shows it; `activationToken` as for the sheet (WindowActivation.swift).
    func present(activationToken: String?) {
        if let chosen { gtk_window_set_focus(mr_window(window.widget), choices[chosen].widget) }
        setTransientParent(window.widget, content.parentWindow)
        presentWindow(window.widget, activationToken: activationToken)
    }

    /// Whether the keyboard focus is on one of the ways.
    var aWayHasTheFocus: Bool {
        let focus = gtk_window_get_focus(mr_window(window.widget))
        return choices.contains { $0.widget == focus }
    }

    /// The way chosen now.
    var chosen: Int? {
        choices.firstIndex { gtk_check_button_get_active(mr_check_button($0.widget)) != 0 }
    }

    /// **Always** only for a way that can be kept.
    func updateButtons() {
        let way = chosen.map { content.ways[$0] }
        setSensitive(once.widget, way != nil)
        setSensitive(always.widget, content.canRemember && way?.canRemember == true)
    }

    func choose(always: Bool) {
        guard let index = chosen else { return }
        finish(.way(index, always: always))
    }

    func finish(_ answer: ChooserAnswer) {
        guard !hasEnded else { return }
        answered(answer)
        end()
    }

    /// The window goes: every handler disconnected first.
    func end() {
        guard !hasEnded else { return }
        hasEnded = true
        connections.disconnectAll()
        gtk_widget_remove_controller(window.widget, mr_event_controller(keys.pointer))
        gtk_window_destroy(mr_window(window.widget))
        ended(self)
    }
}

private func chooser(_ data: UnsafeMutableRawPointer?) -> ChooserWindow? {
    data.map { Unmanaged<ChooserWindow>.fromOpaque($0).takeUnretainedValue() }
}

/// Return in the chooser: the focused way taken once; elsewhere (a button) not handled here.
func onChooserReturn(_ widget: UnsafeMutablePointer<GtkWidget>?, _ arguments: OpaquePointer?, _ data: gpointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        guard let chooser = chooser(data), chooser.aWayHasTheFocus else { return 0 }
        chooser.choose(always: false)
        return 1
    }
}

func onChooserToggled(_ button: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        chooser(data)?.updateButtons()
    }
}

func onChooserOnce(_ button: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        chooser(data)?.choose(always: false)
    }
}

func onChooserAlways(_ button: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        chooser(data)?.choose(always: true)
    }
}

func onChooserCancel(_ button: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        chooser(data)?.finish(.cancelled)
    }
}

/// GtkWindow::close-request: closing the window is Cancel; the window goes through `end()`.
func onChooserCloseRequest(_ window: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        chooser(data)?.finish(.cancelled)
        return 1
    }
}
