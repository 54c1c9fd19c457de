internal import CGTK
import DesktopIntegration
import MailtoCore
import MainLoop

// "Set up sending": when no account is set up, the sheet offers to set one up (UI/setup.ui)
// instead of naming a command; its window takes an address and a password, the host finds
// the server, tests it and keeps it (SheetHost.setUpSending, on a worker thread), and the
// sheet then sends from it. With nothing found, the window shows the server's own form.

extension ComposeSheet {
    /// The offer's button: the window, once.
    func openSetup() {
        guard setupDialog == nil, !hasEnded else { return }
        setupDialog = SetupDialog(over: self, onlineAccounts: content.onlineAccountsAvailable)
    }

    /// The account is kept: From names it, the offer goes, Send can work.
    func sendingSetUp(from: String, summary: String) {
        // The focus back to the message first, then the setup's window away: its entries
        // must not hold the focus (nor be asked about by a screen reader) once destroyed.
        gtk_window_present(mr_window(window.widget))
        gtk_widget_grab_focus(textView.widget)
        setupDialog?.close()
        setupDialog = nil
        content.from = from
        content.sendUnavailable = nil
        content.offersSetup = false
        setupOffer?.done(from: from)
        setupOffer = nil
        checkAddresses()
        toast(tr("Sending is set up: %@", summary))
    }
}

/// The offer shown at the top of a sheet with no account: a line and "Set Up Sending…".
@GLibMainActor
final class SetupOffer {
    private let box: GObjectRef
    private let notices: GObjectRef
    private let from: GObjectRef
    private let button: GObjectRef
    private var connections = SignalConnections()

    init(in sheet: ComposeSheet, notices: GObjectRef, from: GObjectRef) {
        // The offer alone: not the setup's window, until someone asks for it.
        let ui = UIBuilder(Embedded.setup, only: ["setup-offer"])
        box = ui.object("setup-offer")
        button = ui.object("setup-offer-button")
        self.notices = notices
        self.from = from
        gtk_box_append(mr_box(notices.widget), box.widget)
        connections.connect(button, "clicked", callback(onSetupOffered), data: Unmanaged.passUnretained(sheet).toOpaque())
    }

    /// The account set up: From names it, and the offer is gone.
    func done(from text: String) {
        gtk_label_set_text(mr_label(from.widget), text.visible)
        remove()
    }

    func remove() {
        connections.disconnectAll()
        if gtk_widget_get_parent(box.widget) != nil { gtk_box_remove(mr_box(notices.widget), box.widget) }
    }
}

/// The "Set Up Sending" window, modal over the sheet (UI/setup.ui's `setup-window`). Its
/// handlers are disconnected in `close`, before the window is destroyed.
@GLibMainActor
final class SetupDialog {
    let window: GObjectRef
    private unowned let sheet: ComposeSheet
    private let address: GObjectRef
    private let password: GObjectRef
    private let manual: GObjectRef
    private let server: GObjectRef
    private let port: GObjectRef
    private let tls: GObjectRef
    private let user: GObjectRef
    private let status: GObjectRef
    /// What each place asked said, under `status`.
    private let details: GObjectRef
    private let start: GObjectRef
    private let onlineAccounts: GObjectRef
    private var connections = SignalConnections()
    private var closed = false
    private var destroyed = false
    private(set) var busy = false

    init(over sheet: ComposeSheet, onlineAccounts offered: Bool) {
        self.sheet = sheet
        let ui = UIBuilder(Embedded.setup, only: ["setup-window"])
        window = ui.object("setup-window")
        address = ui.object("setup-address")
        password = ui.object("setup-password")
        manual = ui.object("setup-manual")
        server = ui.object("setup-server")
        port = ui.object("setup-port")
        tls = ui.object("setup-tls")
        user = ui.object("setup-user")
        status = ui.object("setup-status")
        details = ui.object("setup-details")
        start = ui.object("setup-start")
        onlineAccounts = ui.object("setup-online-accounts")
        setVisible(onlineAccounts.widget, offered)
        gtk_window_set_transient_for(mr_window(window.widget), mr_window(sheet.window.widget))
        let data = Unmanaged.passUnretained(self).toOpaque()
        // Set Up and Cancel are the window's actions (`win.set-up`, `win.cancel`), as the
        // sheet's buttons are: the buttons, Return (Set Up is the default widget) and Escape.
        // A plain window is no action map: the group is inserted under `win`.
        guard let group = g_simple_action_group_new() else { preconditionFailure("g_simple_action_group_new returned NULL") }
        let actions = GObjectRef(adopting: UnsafeMutableRawPointer(group))
        for (name, handler) in [("set-up", onSetupStartAction), ("cancel", onSetupCancelAction)] as [(String, ActionHandler)] {
            guard let made = g_simple_action_new(name, nil) else { preconditionFailure("g_simple_action_new returned NULL") }
            let action = GObjectRef(adopting: UnsafeMutableRawPointer(made))
            connections.connect(action, "activate", callback(handler), data: data)
            g_action_map_add_action(mr_action_map_of(actions.pointer), mr_action(made))
        }
        gtk_widget_insert_action_group(window.widget, "win", mr_action_group(actions.pointer))
        connections.connect(onlineAccounts, "clicked", callback(onSetupOnlineAccounts), data: data)
        connections.connect(window, "close-request", callback(onSetupCloseRequest), data: data)
        gtk_window_present(mr_window(window.widget))
        gtk_widget_grab_focus(address.widget)
    }

    /// Set Up: the form to the host, on a worker thread; the window waits, insensitive.
    func begin() {
        guard !busy, !closed else { return }
        let typedAddress = entryText(address.widget).trimmingSpaces()
        guard !typedAddress.isEmpty else { return show(tr("Type your address first."), isError: true) }
        var form = SendingSetupForm(address: typedAddress, password: entryText(password.widget))
        if gtk_widget_get_visible(manual.widget) != 0 {
            let host = entryText(server.widget).trimmingSpaces()
            guard !host.isEmpty else { return show(tr("Type the server's name."), isError: true) }
            let portText = entryText(port.widget).trimmingSpaces()
            let portNumber = Int(portText)
            guard portText.isEmpty || portNumber.map({ (1...65535).contains($0) }) == true else {
                return show(tr("The port is a number from 1 to 65535."), isError: true)
            }
            let login = entryText(user.widget).trimmingSpaces()
            form.server = SendingSetupForm.ManualServer(
                host: host, port: portNumber, security: gtk_check_button_get_active(mr_check_button(tls.widget)) != 0 ? "tls" : "starttls",
                user: login.isEmpty ? nil : login)
        }
        busy = true
        setInputsSensitive(false)
        show(form.server == nil ? tr("Finding your mail server and testing it…") : tr("Testing the server…"), isError: false)
        // Off the main loop (it waits on DNS, HTTPS and a server); the dialog is kept until
        // the answer is in.
        let (host, asked) = (sheet.host, form)
        Background.run({ host.setUpSending(asked) }, then: { [self] answer in finish(answer) })
    }

    /// What came of it, on the main loop.
    func finish(_ answer: SendingSetupAnswer) {
        busy = false
        guard !closed else { return }
        setInputsSensitive(true)
        switch answer {
        case .ready(let from, let summary):
            sheet.sendingSetUp(from: from, summary: summary)
        case .notFound(let message):
            setVisible(manual.widget, true)
            let lines = message.split(separator: "\n").map(String.init)
            show((lines.first ?? "") + ". " + tr("Type its settings below, then Set Up again."), isError: true,
                 details: Array(lines.dropFirst()))
            gtk_widget_grab_focus(server.widget)
        case .failed(let message):
            let lines = message.split(separator: "\n").map(String.init)
            show(lines.first ?? "", isError: true, details: Array(lines.dropFirst()))
        }
    }

    func cancel() {
        guard !busy else { return }
        sheet.setupDialog = nil
        close()
    }

    func openOnlineAccounts() {
        do {
            try OnlineAccounts.openSettings(account: nil)
        } catch {
            show(error.message, isError: true)
        }
    }

    /// `text` in the status line, and each line of `details` below it (each made visible
    /// on its own: `visible` would show a line break as `\n`).
    private func show(_ text: String, isError: Bool, details lines: [String] = []) {
        gtk_label_set_text(mr_label(status.widget), text.visible)
        if isError { gtk_widget_add_css_class(status.widget, "error") } else { gtk_widget_remove_css_class(status.widget, "error") }
        setVisible(status.widget, true)
        gtk_label_set_text(mr_label(details.widget), lines.map(\.visible).joined(separator: "\n"))
        setVisible(details.widget, !lines.isEmpty)
    }

    private func setInputsSensitive(_ sensitive: Bool) {
        for widget in [address, password, server, port, tls, user, start, onlineAccounts] { setSensitive(widget.widget, sensitive) }
    }

    /// Gives the focus back to the sheet and destroys the window from the main loop's next
    /// idle moment, when the events of the focus leaving it have been handled (destroyed at
    /// once, GTK 4.8's AT-SPI bridge was seen to crash on an object path of a widget already
    /// gone). Until then it stays shown, insensitive: hidden, it would stay one of GTK's
    /// toplevels with no accessible path, and GTK 4.8 answers a screen reader's request for
    /// a window past the shown ones (GetChildAtIndex) with the last toplevel, crashing the
    /// sheet on it (`UIBuilder(_:only:)`). `gtk_window_destroy` hides, unlists and
    /// unrealizes it in one step.
    func close() {
        guard !closed else { return }
        closed = true
        connections.disconnectAll()
        setSensitive(window.widget, false)
        gtk_window_set_transient_for(mr_window(window.widget), nil)
        gtk_window_present(mr_window(sheet.window.widget))
        mr_idle_add(onSetupDestroy, Unmanaged.passRetained(self).toOpaque())
    }

    /// The idle callback of `close`.
    fileprivate func destroy() {
        guard !destroyed else { return }
        destroyed = true
        gtk_window_destroy(mr_window(window.widget))
    }

    isolated deinit {
        connections.disconnectAll()
        destroy()
    }
}

// MARK: - Callbacks (top-level, capturing nothing: the owner from its user data)

private func onSetupDestroy(_ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        guard let data else { return 0 }
        Unmanaged<SetupDialog>.fromOpaque(data).takeRetainedValue().destroy()
        return 0
    }
}

private func dialog(_ data: UnsafeMutableRawPointer?) -> SetupDialog? {
    data.map { Unmanaged<SetupDialog>.fromOpaque($0).takeUnretainedValue() }
}

private func onSetupOffered(_ button: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        data.map { Unmanaged<ComposeSheet>.fromOpaque($0).takeUnretainedValue() }?.openSetup()
    }
}

private func onSetupStartAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        dialog(data)?.begin()
    }
}

private func onSetupCancelAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        dialog(data)?.cancel()
    }
}

private func onSetupOnlineAccounts(_ button: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        dialog(data)?.openOnlineAccounts()
    }
}

/// GtkWindow::close-request: closing the window is Cancel (not while a setup runs).
private func onSetupCloseRequest(_ window: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        guard let dialog = dialog(data) else { return 0 }
        if dialog.busy { return 1 }
        dialog.cancel()
        return 1
    }
}
