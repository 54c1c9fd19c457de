#if canImport(Glibc)
import Glibc
#endif
internal import CGIO

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

    /// Takes SIGTERM and SIGINT, and listens for network changes.
    public init() throws(DesktopError) {
        let gio = try GIOLibrary.load()
        self.gio = gio
        // GNetworkMonitor emits its signals on the context that was the thread default
        // when it was made: ours (gnetworkmonitorbase.c, `priv->context`).
        let made = context.run { gio.pointee.g_network_monitor_get_default() }
        guard let made else { throw DesktopError(.configuration, "GIO has no network monitor") }
        monitor = made
        _ = gio.pointee.g_object_ref(gpointer(made))
        let owner = Unmanaged.passUnretained(self).toOpaque()
        let callback = unsafeBitCast(onNetworkChanged as NetworkChangedCallback, to: GCallback.self)
        handler = gio.pointee.g_signal_connect_data(gpointer(made), "network-changed", callback, owner, nil, GConnectFlags(rawValue: 0))
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

    fileprivate static func owner(_ data: gpointer?) -> NetworkMonitor? {
        data.map { Unmanaged<NetworkMonitor>.fromOpaque($0).takeUnretainedValue() }
    }
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
