internal import CGIO
import MailtoCore

/// A private connection to the session bus: the one Swift owner of a `GDBusConnection *`
/// made by `g_dbus_connection_new_for_address` (transfer full), closed and unref'd in
/// `deinit`. Private rather than GIO's shared `g_bus_get` singleton, so that closing it
/// never pulls the bus from under other code in the process, and so that connecting can be
/// abandoned at a deadline.
final class BusConnection {
    let pointer: OpaquePointer
    /// Where signal callbacks and async results of this connection are dispatched.
    let context: MainContext
    let gio: UnsafePointer<mr_gio_api>

    private init(adopting pointer: OpaquePointer, context: MainContext, gio: UnsafePointer<mr_gio_api>) {
        self.pointer = pointer
        self.context = context
        self.gio = gio
    }

    deinit {
        // `g_dbus_connection_close`, not `_close_sync`: closing flushes what is still queued,
        // which against a peer that stopped reading would wait without end. Every call made
        // here has had its reply or been given up, so nothing is waited for; the worker
        // thread holds its own reference until the stream is closed.
        gio.pointee.g_dbus_connection_close(pointer, nil, nil, nil)
        gio.pointee.g_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// Whether the connection is gone (the bus exited or dropped it): wraps
    /// `g_dbus_connection_is_closed`. GDBus then dispatches its `closed` signal on
    /// `context`, which wakes a wait there to look.
    var isClosed: Bool {
        gio.pointee.g_dbus_connection_is_closed(pointer) != 0
    }

    /// Whether GDBus can use one of `address`'s elements. One it cannot use at all
    /// (`disabled:`, which sandboxes and GLib's own tests set to mean "no bus", or one that
    /// does not parse) is no bus, said at once: a connection attempt, on a thread of
    /// GDBus's own, could only fail.
    static func isUsable(_ address: String, _ gio: UnsafePointer<mr_gio_api>) -> Bool {
        address.split(separator: ";").contains { gio.pointee.g_dbus_is_supported_address(String($0), nil) != 0 }
    }

    /// `DBUS_SESSION_BUS_ADDRESS` when it is set and GDBus can use none of it: then there
    /// is no session bus, whatever else the system has.
    static func unusableAddressGiven(_ gio: UnsafePointer<mr_gio_api>) -> String? {
        guard let given = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !given.isEmpty else { return nil }
        return isUsable(given, gio) ? nil : given
    }

    private static func noBus(_ address: String) -> DesktopError {
        DesktopError(.configuration, tr("no session bus: GDBus cannot use the address %@", address))
    }

    /// Connects to the session bus within `seconds`: the address from
    /// `g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION)` (`DBUS_SESSION_BUS_ADDRESS`,
    /// else `$XDG_RUNTIME_DIR/bus`), then `g_dbus_connection_new_for_address` as a client
    /// of a message bus, waited for on a private main context. A bus that accepts the
    /// socket and never answers is given up at the deadline instead of hanging the caller.
    static func session(within seconds: Double) throws(DesktopError) -> BusConnection {
        let gio = try GIOLibrary.load()
        // The environment's address is judged first, before GDBus's own lookup starts its
        // machinery (its types and a thread pool: a third of a millisecond of a click with
        // no bus).
        if let given = unusableAddressGiven(gio) { throw noBus(given) }
        var error: UnsafeMutablePointer<GError>?
        guard let address = takeString(gio.pointee.g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error)) else {
            throw takeError(error, .configuration, tr("no session bus"))
        }
        if !isUsable(address, gio) { throw noBus(address) }
        let context = MainContext()
        var connection: OpaquePointer?
        var failure: String?
        let call = AsyncCall { _, result in
            var error: UnsafeMutablePointer<GError>?
            if let made = gio.pointee.g_dbus_connection_new_for_address_finish(result, &error) {
                connection = made
            } else {
                failure = error?.pointee.message.map { String(cString: $0) } ?? tr("unknown error")
                g_error_free(error)
            }
        }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue
        )
        // Cancelled at the deadline, so that the connecting and authenticating (on GDBus's
        // worker thread) stop too.
        let cancellable = Cancellable(gio: gio)
        let finished = context.run {
            gio.pointee.g_dbus_connection_new_for_address(address, flags, nil, cancellable.pointer, AsyncCall.ready,
                                                          call.userData)
            return context.wait(for: call, cancelling: cancellable, seconds: seconds)
        }
        // Also a connection made in the grace after the deadline: it is ours to close.
        if let connection {
            return BusConnection(adopting: connection, context: context, gio: gio)
        }
        guard finished else {
            throw DesktopError(.transient, tr("the session bus at %@ did not answer within %@ s", address, seconds.secondsText))
        }
        throw DesktopError(.configuration, tr("cannot connect to the session bus at %@: %@", address, failure ?? tr("unknown error")))
    }

    /// Calls `method` and waits at most `seconds` for the reply: wraps
    /// `g_dbus_connection_call_sync`. `parameters` is consumed if floating (as GLib does);
    /// the reply is transfer full. A call that ran out of time says so with its deadline
    /// (GDBus's "Timeout was reached" says neither).
    func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String,
        _ parameters: OpaquePointer?, replyType: String, seconds: Double
    ) throws(DesktopError) -> Variant {
        var error: UnsafeMutablePointer<GError>?
        let timeout = Int32(clamping: Int(seconds * 1000))
        let reply = withExtendedLifetime(VariantType(replyType)) { type in
            gio.pointee.g_dbus_connection_call_sync(
                pointer, destination, path, interface, method, parameters, type.pointer,
                G_DBUS_CALL_FLAGS_NONE, timeout, nil, &error
            )
        }
        guard let reply else {
            // G_IO_ERROR is GIO's quark, so it is looked up by name (as g_io_error_quark does).
            if let error, error.pointee.domain == g_quark_from_static_string("g-io-error-quark"),
               error.pointee.code == G_IO_ERROR_TIMED_OUT.rawValue {
                g_error_free(error)
                throw DesktopError(.transient, tr("no answer to %@ within %@ s", "\(interface).\(method)", seconds.secondsText))
            }
            throw takeError(error, .transient, "\(interface).\(method)")
        }
        return Variant(adopting: reply)
    }
}

// MARK: - Signals

extension BusConnection {
    /// A signal's member name and its parameters (a reference of the handler's own).
    typealias SignalHandler = (_ member: String, _ parameters: Variant) -> Void

    /// Subscribes `handler` to the signals that match (`nil`: any): wraps
    /// `g_dbus_connection_signal_subscribe`. Signals are dispatched on the context that
    /// is the thread default now (`context`, inside `context.run`), only while it is
    /// iterated. The returned id ends it with `unsubscribe`; GLib drops the handler then.
    func subscribe(
        sender: String?, interface: String?, member: String?, path: String?, arg0: String? = nil,
        _ handler: @escaping SignalHandler
    ) -> guint {
        gio.pointee.g_dbus_connection_signal_subscribe(
            pointer, sender, interface, member, path, arg0, G_DBUS_SIGNAL_FLAGS_NONE,
            onSignal, Unmanaged.passRetained(SignalBox(handler)).toOpaque(), releaseSignalBox)
    }

    /// Wraps `g_dbus_connection_signal_unsubscribe`.
    func unsubscribe(_ id: guint) {
        gio.pointee.g_dbus_connection_signal_unsubscribe(pointer, id)
    }
}

/// A subscription's handler, held by GLib for as long as the subscription lives.
private final class SignalBox {
    let handler: BusConnection.SignalHandler
    init(_ handler: @escaping BusConnection.SignalHandler) { self.handler = handler }
}

/// The one `GDBusSignalCallback` of every subscription: recovers its handler from
/// `userData`; `parameters` is lent (transfer none), so the handler gets a reference.
private func onSignal(
    _ connection: OpaquePointer?, _ sender: UnsafePointer<gchar>?, _ path: UnsafePointer<gchar>?,
    _ interface: UnsafePointer<gchar>?, _ member: UnsafePointer<gchar>?, _ parameters: OpaquePointer?,
    _ userData: gpointer?
) {
    guard let userData, let member, let parameters else { return }
    let box = Unmanaged<SignalBox>.fromOpaque(userData).takeUnretainedValue()
    box.handler(String(cString: member), Variant(adopting: g_variant_ref(parameters)))
}

/// The `GDestroyNotify` of a subscription: drops the handler's box.
private func releaseSignalBox(_ userData: gpointer?) {
    guard let userData else { return }
    Unmanaged<SignalBox>.fromOpaque(userData).release()
}
