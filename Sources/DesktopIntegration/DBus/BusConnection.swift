internal import CGIO

/// A private connection to the session bus: the one Swift owner of a `GDBusConnection *`
/// made by `g_dbus_connection_new_for_address` (transfer full), closed and unref'd in
/// `deinit`. Private rather than GIO's shared `g_bus_get` singleton, so that closing it
/// never pulls the bus from under other code in the process, and so that connecting can be
/// abandoned at a deadline.
final class BusConnection {
    let pointer: OpaquePointer
    /// Where signal callbacks and async results of this connection are dispatched.
    let context: MainContext
    let gio: mr_gio_api

    private init(adopting pointer: OpaquePointer, context: MainContext, gio: mr_gio_api) {
        self.pointer = pointer
        self.context = context
        self.gio = gio
    }

    deinit {
        _ = gio.g_dbus_connection_close_sync(pointer, nil, nil)
        gio.g_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// Connects to the session bus within `seconds`: the address from
    /// `g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION)` (`DBUS_SESSION_BUS_ADDRESS`,
    /// else `$XDG_RUNTIME_DIR/bus`), then `g_dbus_connection_new_for_address` as a client
    /// of a message bus, waited for on a private main context. A bus that accepts the
    /// socket and never answers is given up at the deadline instead of hanging the caller.
    static func session(within seconds: Double) throws(DesktopError) -> BusConnection {
        let gio = try GIOLibrary.load()
        var error: UnsafeMutablePointer<GError>?
        guard let address = takeString(gio.g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error)) else {
            throw takeError(error, .configuration, "no session bus")
        }
        let context = MainContext()
        let wait = ConnectWait(gio: gio)
        // Retained for the callback, which releases it; if the deadline passes first, the
        // callback may never run and the small `ConnectWait` is left behind on purpose.
        let unmanaged = Unmanaged.passRetained(wait)
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue
        )
        let finished = context.run {
            gio.g_dbus_connection_new_for_address(address, flags, nil, nil, connectionReady, unmanaged.toOpaque())
            return context.iterate(until: { wait.finished }, seconds: seconds)
        }
        guard finished else {
            throw DesktopError(.transient, "the session bus at \(address) did not answer within \(seconds) s")
        }
        guard let connection = wait.connection else {
            throw DesktopError(.configuration, "cannot connect to the session bus at \(address): \(wait.error ?? "unknown error")")
        }
        return BusConnection(adopting: connection, context: context, gio: gio)
    }

    /// Calls `method` and waits at most `seconds` for the reply: wraps
    /// `g_dbus_connection_call_sync`. `parameters` is consumed if floating (as GLib does);
    /// the reply is transfer full.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String,
        _ parameters: OpaquePointer?, replyType: String, seconds: Double
    ) throws(DesktopError) -> Variant {
        var error: UnsafeMutablePointer<GError>?
        let timeout = Int32(clamping: Int(seconds * 1000))
        let reply = withExtendedLifetime(VariantType(replyType)) { type in
            gio.g_dbus_connection_call_sync(
                pointer, destination, path, interface, method, parameters, type.pointer,
                G_DBUS_CALL_FLAGS_NONE, timeout, nil, &error
            )
        }
        guard let reply else {
            throw takeError(error, .transient, "\(interface).\(method)")
        }
        return Variant(adopting: reply)
    }
}

/// What `connectionReady` tells the loop in `BusConnection.session`.
private final class ConnectWait {
    let gio: mr_gio_api
    var finished = false
    var connection: OpaquePointer?
    var error: String?

    init(gio: mr_gio_api) {
        self.gio = gio
    }
}

/// The `GAsyncReadyCallback` of `g_dbus_connection_new_for_address`: a top-level function
/// that recovers its `ConnectWait` (retained for the call) from `userData`.
private func connectionReady(
    _ source: UnsafeMutablePointer<GObject>?, _ result: OpaquePointer?, _ userData: gpointer?
) {
    guard let userData else { return }
    let wait = Unmanaged<ConnectWait>.fromOpaque(userData).takeRetainedValue()
    var error: UnsafeMutablePointer<GError>?
    if let connection = wait.gio.g_dbus_connection_new_for_address_finish(result, &error) {
        wait.connection = connection
    } else {
        wait.error = error?.pointee.message.map { String(cString: $0) } ?? "unknown error"
        g_error_free(error)
    }
    wait.finished = true
}
