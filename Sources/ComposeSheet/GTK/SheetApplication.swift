internal import CGTK

/// The GtkApplication that holds the sheets of one process (issue 13 makes it the
/// unique D-Bus service; for now each process has its own, `G_APPLICATION_NON_UNIQUE`).
/// It runs until the last sheet is gone.
public final class SheetApplication {
    private let application: GObjectRef
    private var connections = SignalConnections()
    private var waiting: [(SheetContent, any SheetHost, RecoveryStore?)] = []
    private var sheets: [ComposeSheet] = []
    private var activated = false

    /// Whether GTK can start here (a display it can open): wraps `gtk_init_check`. Without
    /// one, a GtkApplication would exit the process on its own, so the caller asks first.
    public static func canStart() -> Bool {
        gtk_init_check() != 0
    }

    /// Wraps `gtk_application_new` (transfer full); `id` `nil` is an application without a
    /// bus name.
    public init(id: String? = nil) {
        guard let pointer = gtk_application_new(id, G_APPLICATION_NON_UNIQUE) else {
            preconditionFailure("gtk_application_new returned NULL")
        }
        application = GObjectRef(adopting: UnsafeMutableRawPointer(pointer))
        connections.connect(application, "activate", callback(onActivate), data: Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        connections.disconnectAll()
    }

    /// Opens a sheet once the application runs (or now, when it does).
    public func open(_ content: SheetContent, host: any SheetHost, recovery: RecoveryStore? = nil) {
        if activated {
            show(content, host: host, recovery: recovery)
        } else {
            waiting.append((content, host, recovery))
        }
    }

    /// Runs the main loop until every sheet has ended: wraps `g_application_run`.
    public func run() -> Int32 {
        g_application_run(mr_application(application.pointer.assumingMemoryBound(to: GtkApplication.self)), 0, nil)
    }

    fileprivate func activate() {
        activated = true
        let opening = waiting
        waiting = []
        for (content, host, recovery) in opening { show(content, host: host, recovery: recovery) }
    }

    private func show(_ content: SheetContent, host: any SheetHost, recovery: RecoveryStore?) {
        let gtkApplication = application.pointer.assumingMemoryBound(to: GtkApplication.self)
        let sheet = ComposeSheet(application: gtkApplication, content: content, host: host,
                                 recovery: recovery?.create(), ended: { [unowned self] sheet in
                                     self.sheets.removeAll { $0 === sheet }
                                 })
        sheets.append(sheet)
        sheet.present()
    }
}

private func onActivate(_ application: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    Unmanaged<SheetApplication>.fromOpaque(data).takeUnretainedValue().activate()
}
