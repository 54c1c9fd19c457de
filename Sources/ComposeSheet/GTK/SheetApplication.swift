internal import CGTK
import DesktopIntegration
import MainLoop

/// The AdwApplication that holds the sheets of one process (libadwaita's: its style manager
/// follows the system's light or dark appearance, and its widgets are initialised). Without an id it is the
/// program a command line starts for one sheet (`G_APPLICATION_NON_UNIQUE`), and it runs
/// until that sheet is gone. With the application id it is the desktop service: the one
/// primary instance on the session bus, D-Bus activatable, which opens the sheets that
/// clicks, the command line and the Email portal ask for (`serve`), sends notifications
/// with actions, and quits when it has been idle for its inactivity timeout. A service
/// started where GTK cannot (no display in its activation environment) is a plain
/// GApplication with no windows: it serves what needs none (handoffs, the outbox, portal
/// requests the plan does not show a sheet for).
@GLibMainActor
public final class SheetApplication {
    private let application: GObjectRef
    /// Whether this application has GTK, and so can show sheets.
    public let showsSheets: Bool
    private var connections = SignalConnections()
    private var waiting: [(SheetContent, any SheetHost, RecoveryStore?, String?, SheetHandle)] = []
    private var sheets: [ComposeSheet] = []
    /// Held Sends whose window was closed (ClosedHold), until their message went or is back.
    private var closedHolds: [ClosedHold] = []
    /// The choosers on screen (SheetApplication+Chooser.swift), and those waiting for the start.
    var choosers: [ChooserWindow] = []
    var waitingChoosers: [() -> Void] = []
    private(set) var started = false
    /// The text of Copy Address while this program owns the clipboard (ClipboardHold.swift).
    var clipboardHold: ClipboardHold?
    weak var delegate: (any ServiceDelegate)?

    /// Whether GTK can start here (a display it can open): wraps `gtk_init_check`. Without
    /// one, a GtkApplication would exit the process on its own, so the caller asks first
    /// (and the service starts without windows).
    public static func canStart() -> Bool {
        gtk_init_check() != 0
    }

    /// Wraps `adw_application_new` (transfer full). `id` `nil`: an application without a
    /// bus name, for one sheet. With an `id`, a unique application that handles `Open`
    /// (GLib's D-Bus activation of its desktop entry); `isService`: started by D-Bus
    /// activation (`--gapplication-service`), so it stays up for the inactivity timeout
    /// without a window. `windowed` `false`: `g_application_new` instead, for a service
    /// that cannot start GTK (`canStart()` said no).
    public init(id: String? = nil, isService: Bool = false, windowed: Bool = true) {
        var flags = id == nil ? G_APPLICATION_NON_UNIQUE.rawValue : G_APPLICATION_HANDLES_OPEN.rawValue
        if isService { flags |= G_APPLICATION_IS_SERVICE.rawValue }
        let made = windowed ? adw_application_new(id, GApplicationFlags(rawValue: flags)).map { UnsafeMutableRawPointer($0) }
            : g_application_new(id, GApplicationFlags(rawValue: flags)).map { UnsafeMutableRawPointer($0) }
        guard let pointer = made else { preconditionFailure("adw_application_new returned NULL") }
        // Its name and icon on its windows and in GLib's notifications (Identity).
        g_set_application_name(Identity.name)
        if windowed { gtk_window_set_default_icon_name(Identity.icon) }
        application = GObjectRef(adopting: pointer)
        showsSheets = windowed
        let data = Unmanaged.passUnretained(self).toOpaque()
        connections.connect(application, "activate", callback(onActivate), data: data)
        connections.connect(application, "startup", callback(onStartup), data: data)
        connections.connect(application, "open", unsafeBitCast(onOpen as OpenHandler, to: GCallback.self), data: data)
        if windowed, id != nil { readPlatformDataTokens(of: gApplication) }
    }

    isolated deinit {
        connections.disconnectAll()
    }

    var gtkApplication: UnsafeMutablePointer<GtkApplication> {
        application.pointer.assumingMemoryBound(to: GtkApplication.self)
    }

    var gApplication: UnsafeMutablePointer<GApplication> { application.pointer.assumingMemoryBound(to: GApplication.self) }

    /// Opens a sheet once the application has started (or now, when it has). The handle
    /// withdraws it (the Email portal's `Request.Close`). Only where `showsSheets`.
    @discardableResult
    public func open(
        _ content: SheetContent, host: any SheetHost, recovery: RecoveryStore? = nil, activationToken: String? = nil
    ) -> SheetHandle {
        precondition(showsSheets, "a sheet opened in an application without GTK")
        let handle = SheetHandle()
        if started {
            show(content, host: host, recovery: recovery, activationToken: activationToken, handle: handle)
        } else {
            waiting.append((content, host, recovery, activationToken, handle))
        }
        return handle
    }

    /// Runs the main loop: wraps `g_application_run` (no arguments: the command line is
    /// read by the caller, and `--gapplication-service` became `isService`). A one-sheet
    /// application ends when its sheet is gone; the service when it has been idle.
    public func run() -> Int32 {
        g_application_run(gApplication, 0, nil)
    }

    /// Keeps the service up while work it started goes on: wraps `g_application_hold` and
    /// `g_application_release`.
    public func hold() { g_application_hold(gApplication) }
    public func release() { g_application_release(gApplication) }

    fileprivate func startup() {
        started = true
        let opening = waiting
        waiting = []
        for (content, host, recovery, token, handle) in opening {
            show(content, host: host, recovery: recovery, activationToken: token, handle: handle)
        }
        let choosing = waitingChoosers
        waitingChoosers = []
        for show in choosing { show() }
    }

    /// `activate` (a plain start of the program, or `Activate` on the bus): nothing to
    /// show but what is waiting.
    fileprivate func activate() {
        startup()
    }

    fileprivate func openURIs(_ uris: [String]) {
        delegate?.open(uris)
    }

    private func show(
        _ content: SheetContent, host: any SheetHost, recovery: RecoveryStore?, activationToken: String?, handle: SheetHandle
    ) {
        let file = recovery?.create()
        let sheet = makeSheet(content, host: host, recovery: file, handle: handle)
        // Without a recovery file of its own (none can be made), the recovered message it
        // shows keeps its old one until the sheet ends.
        if file == nil { sheet.leftover = recovery?.carried }
        sheet.present(activationToken: activationToken)
    }

    private func makeSheet(_ content: SheetContent, host: any SheetHost, recovery: RecoveryFile?, handle: SheetHandle) -> ComposeSheet {
        let sheet = ComposeSheet(application: gtkApplication, content: content, host: host, recovery: recovery,
                                 ended: { [unowned self] sheet, closedHold in
                                     sheet.leftover?.discard()
                                     self.sheets.removeAll { $0 === sheet }
                                     if let closedHold { self.keep(closedHold, for: handle) }
                                 })
        sheet.copyAddresses = { [unowned self] text throws(ServiceError) in try copy(text) }
        sheets.append(sheet)
        handle.sheet = sheet
        return sheet
    }

    /// A held Send whose window was closed: the application stays until its message went,
    /// or is shown again in a new sheet of the same request (Undo, a refusal).
    private func keep(_ closedHold: ClosedHold, for handle: SheetHandle) {
        closedHolds.append(closedHold)
        handle.closedHold = closedHold
        hold()
        closedHold.start(reopen: { [unowned self] closedHold, reason in
            self.forget(closedHold, for: handle)
            let sheet = self.makeSheet(closedHold.content, host: closedHold.host, recovery: closedHold.recovery, handle: handle)
            sheet.present()
            sheet.show(returning: reason)
        }, finished: { [unowned self] closedHold in
            self.forget(closedHold, for: handle)
        })
    }

    private func forget(_ closedHold: ClosedHold, for handle: SheetHandle) {
        closedHolds.removeAll { $0 === closedHold }
        if handle.closedHold === closedHold { handle.closedHold = nil }
        release()
    }
}

/// A window a request opened (its chooser, then its sheet), as the code that asked for it
/// holds it: the GTK application's `SheetHandle`, a test's recording fake.
@GLibMainActor
public protocol SheetWindow: AnyObject {
    /// Ends it as its request was withdrawn (the Email portal's `Request.Close`): a chooser
    /// is cancelled; a sheet with nothing edited is cancelled, one with edits saved as a draft.
    func withdraw()
    /// The sheet `other` holds is this request's now (the chooser's answer opened it).
    func follow(_ other: any SheetWindow)
    /// Undo of the sheet's held Send, from elsewhere than its toast (the notification's
    /// button): as the toast's Undo; a sheet whose window was closed meanwhile opens again
    /// with the message. `false`: nothing is held (its message went, or is going).
    func undoSend() -> Bool
}

/// One sheet (or chooser) of the GTK application.
@GLibMainActor
public final class SheetHandle: SheetWindow {
    weak var sheet: ComposeSheet?
    /// Its held Send, while the window was closed and the Undo time runs on.
    weak var closedHold: ClosedHold?
    /// The chooser the request opened first, while it is on screen.
    weak var chooser: ChooserWindow?

    init() {}

    public func withdraw() {
        sheet?.withdraw()
        chooser?.finish(.cancelled)
    }

    public func follow(_ other: any SheetWindow) {
        sheet = (other as? SheetHandle)?.sheet
    }

    public func undoSend() -> Bool {
        if let closedHold { return closedHold.undo() }
        guard let sheet, sheet.hold != nil else { return false }
        sheet.undoSend()
        return true
    }
}

private typealias OpenHandler = @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void

private func owner(_ data: UnsafeMutableRawPointer?) -> SheetApplication? {
    data.map { Unmanaged<SheetApplication>.fromOpaque($0).takeUnretainedValue() }
}

private func onActivate(_ application: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        owner(data)?.activate()
    }
}

private func onStartup(_ application: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        owner(data)?.startup()
    }
}

/// GApplication's "open": the URIs GLib's launcher passed to `org.freedesktop.Application.Open`.
private func onOpen(
    _ application: UnsafeMutableRawPointer?, _ files: UnsafeMutablePointer<OpaquePointer?>?, _ count: Int32,
    _ hint: UnsafePointer<CChar>?, _ data: UnsafeMutableRawPointer?
) {
    GLibMainActor.assumeIsolated(files, data) { files, data in
        guard let files, count > 0 else { return }
        var uris: [String] = []
        for index in 0..<count {
            guard let uri = mr_file_uri(files, index) else { continue }
            uris.append(String(cString: uri))
            g_free(uri)
        }
        owner(data)?.openURIs(uris)
    }
}
