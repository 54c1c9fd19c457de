#if canImport(Glibc)
import Glibc
#endif
internal import CGIO
import MailtoCore

/// Waits for what should make `outbox watch` act: the network changed (GIO's
/// `GNetworkMonitor` signal `network-changed`), SIGTERM or SIGINT arrived, or a deadline
/// passed. Everything is dispatched on a `GMainContext` of its own, and only inside `wait`.
///
/// SIGTERM and SIGINT are taken over by GLib (`g_unix_signal_source_new`) for this
/// object's lifetime: they no longer end the process, they end the next `wait`.
public final class NetworkMonitor {
    public enum Wake: Equatable, Sendable {
        /// `network-changed`: `available` is whether a default route exists now.
        case networkChanged(available: Bool)
        /// SIGTERM or SIGINT.
        case stop(signal: Int32)
        case timeout
    }

    private let context = MainContext()
    private let gio: UnsafePointer<mr_gio_api>
    /// `g_network_monitor_get_default` (transfer none, a process-wide singleton), ref'd
    /// here so it outlives our handler; unref'd in `deinit`.
    private let monitor: OpaquePointer
    private var handler: gulong = 0
    private var signalSources: [UnsafeMutablePointer<GSource>] = []
    fileprivate var pending: [Wake] = []

    /// How long GIO may take to make its network monitor: NetworkManager's
    /// (gnetworkmonitornm.c) connects to the system bus and asks it with blocking calls
    /// that have no deadline of their own.
    public static let startTimeout: Double = 10

    /// Takes SIGTERM and SIGINT, and listens for network changes. Throws when GIO has no
    /// network monitor, or did not make one within `startTimeout` seconds.
    public init() throws(DesktopError) {
        let gio = try GIOLibrary.load()
        self.gio = gio
        monitor = try Self.defaultMonitor(gio, on: context, seconds: Self.startTimeout)
        _ = gio.pointee.g_object_ref(gpointer(monitor))
        let owner = Unmanaged.passUnretained(self).toOpaque()
        let callback = unsafeBitCast(onNetworkChanged as NetworkChangedCallback, to: GCallback.self)
        handler = gio.pointee.g_signal_connect_data(gpointer(monitor), "network-changed", callback, owner, nil, GConnectFlags(rawValue: 0))
        for (signal, function) in [(SIGTERM, onTerminate), (SIGINT, onInterrupt)] as [(Int32, GSourceFunc)] {
            let source = g_unix_signal_source_new(signal)
            g_source_set_callback(source, function, owner, nil)
            g_source_attach(source, context.pointer)
            if let source { signalSources.append(source) }
        }
    }

    deinit {
        for source in signalSources {
            g_source_destroy(source)
            g_source_unref(source)
        }
        gio.pointee.g_signal_handler_disconnect(gpointer(monitor), handler)
        gio.pointee.g_object_unref(gpointer(monitor))
    }

    /// Whether the monitor sees a default route (`g_network_monitor_get_network_available`).
    public var isNetworkAvailable: Bool {
        gio.pointee.g_network_monitor_get_network_available(monitor) != 0
    }

    /// The next thing that happened, or `.timeout` after `seconds`. A stop wins over
    /// anything else that is pending.
    public func wait(seconds: Double) -> Wake {
        if pending.isEmpty {
            _ = context.iterate(until: { !pending.isEmpty }, seconds: seconds)
        }
        if let stop = pending.first(where: { if case .stop = $0 { true } else { false } }) { return stop }
        return pending.isEmpty ? .timeout : pending.removeFirst()
    }

    /// `g_network_monitor_get_default` (transfer none), called on a thread of its own so
    /// that its blocking bus calls cannot outlast `seconds`: the thread hands the monitor
    /// over through a `GAsyncQueue`, waited for with `g_async_queue_timeout_pop`. A thread
    /// still blocked at the deadline is left behind; it holds its own reference to the job.
    /// GNetworkMonitor emits its signals on the context that was the thread default when
    /// it was made (gnetworkmonitorbase.c, `priv->context`): `context`, pushed there.
    fileprivate static func defaultMonitor(
        _ gio: UnsafePointer<mr_gio_api>, on context: MainContext, seconds: Double
    ) throws(DesktopError) -> OpaquePointer {
        let job = MonitorJob(gio: gio, context: context)
        let thread = g_thread_new("mailto-route-network-monitor", makeDefaultMonitor, Unmanaged.passRetained(job).toOpaque())
        g_thread_unref(thread)
        guard g_async_queue_timeout_pop(job.done, guint64(max(0, seconds) * 1_000_000)) != nil else {
            throw DesktopError(.transient, tr("GIO's network monitor did not start within %@ s", seconds.secondsText))
        }
        guard let made = job.monitor else { throw DesktopError(.configuration, tr("GIO has no network monitor")) }
        return made
    }

    fileprivate static func owner(_ data: gpointer?) -> NetworkMonitor? {
        data.map { Unmanaged<NetworkMonitor>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// What `makeDefaultMonitor` is given and gives back: the monitor is written before the job
/// is pushed on `done`, and read only after it was popped (GAsyncQueue's lock orders them).
private final class MonitorJob {
    let gio: UnsafePointer<mr_gio_api>
    let context: MainContext
    /// The one owner of this `GAsyncQueue` (`g_async_queue_new`, transfer full).
    let done: OpaquePointer
    var monitor: OpaquePointer?

    init(gio: UnsafePointer<mr_gio_api>, context: MainContext) {
        self.gio = gio
        self.context = context
        done = g_async_queue_new()
    }

    deinit {
        g_async_queue_unref(done)
    }
}

/// The `GThreadFunc` of `NetworkMonitor.defaultMonitor`: makes the monitor with `context` as
/// this thread's default, then pushes the job (which it took over, retained) on `done`.
private func makeDefaultMonitor(_ data: gpointer?) -> gpointer? {
    guard let data else { return nil }
    let job = Unmanaged<MonitorJob>.fromOpaque(data).takeRetainedValue()
    job.monitor = job.context.run { job.gio.pointee.g_network_monitor_get_default() }
    g_async_queue_push(job.done, data)
    return nil
}

private typealias NetworkChangedCallback = @convention(c) (OpaquePointer?, gboolean, gpointer?) -> Void

/// `network-changed` (GNetworkMonitor *monitor, gboolean network_available, gpointer user_data).
private func onNetworkChanged(_ monitor: OpaquePointer?, _ available: gboolean, _ data: gpointer?) {
    NetworkMonitor.owner(data)?.pending.append(.networkChanged(available: available != 0))
}

/// The `GSourceFunc` of the SIGTERM source; stays attached (returns TRUE).
private func onTerminate(_ data: gpointer?) -> gboolean {
    NetworkMonitor.owner(data)?.pending.append(.stop(signal: SIGTERM))
    return 1
}

/// The `GSourceFunc` of the SIGINT source; stays attached (returns TRUE).
private func onInterrupt(_ data: gpointer?) -> gboolean {
    NetworkMonitor.owner(data)?.pending.append(.stop(signal: SIGINT))
    return 1
}

/// The network coming and going, told on the process's default main context (the desktop
/// service's main loop): the same GIO monitor as `NetworkMonitor`'s, made within the same
/// deadline (a NetworkManager that does not answer never holds the service's loop).
public final class NetworkWatch {
    private let gio: UnsafePointer<mr_gio_api>
    private let monitor: OpaquePointer
    private var handler: gulong = 0
    fileprivate let changed: (Bool) -> Void

    /// `changed` gets whether a default route exists, at each `network-changed`. Throws as
    /// `NetworkMonitor.init` does.
    public init(changed: @escaping (Bool) -> Void) throws(DesktopError) {
        let gio = try GIOLibrary.load()
        self.gio = gio
        self.changed = changed
        monitor = try NetworkMonitor.defaultMonitor(gio, on: MainContext(processDefault: ()), seconds: NetworkMonitor.startTimeout)
        _ = gio.pointee.g_object_ref(gpointer(monitor))
        let callback = unsafeBitCast(onWatchedNetworkChanged as NetworkChangedCallback, to: GCallback.self)
        handler = gio.pointee.g_signal_connect_data(gpointer(monitor), "network-changed", callback,
                                                    Unmanaged.passUnretained(self).toOpaque(), nil, GConnectFlags(rawValue: 0))
    }

    deinit {
        gio.pointee.g_signal_handler_disconnect(gpointer(monitor), handler)
        gio.pointee.g_object_unref(gpointer(monitor))
    }
}

/// `network-changed` for a `NetworkWatch`.
private func onWatchedNetworkChanged(_ monitor: OpaquePointer?, _ available: gboolean, _ data: gpointer?) {
    guard let data else { return }
    Unmanaged<NetworkWatch>.fromOpaque(data).takeUnretainedValue().changed(available != 0)
}
