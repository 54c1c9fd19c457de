import CGIO

/// The questions a test asks the bus daemon itself (whether a name has an owner, which
/// process owns it) and an accessibility bus's address, asked in this process with GDBus
/// rather than by a `gdbus` process each: tests that wait for a name poll it, and a `gdbus`
/// process a look cost some 36 ms of CPU, 300 looks a run. What a test calls on a program
/// under test still goes through `gdbus call` (`PrivateSessionBus.gdbus`), whose reply text
/// the tests read.
public enum BusCall {
    /// `method` of `interface` at `path` of `destination`, on the bus at `address`, with
    /// one string argument: the reply's first value, or the bus's error. A connection of
    /// its own, closed after the reply: a bus that is gone is an error, not a hang.
    static func call(
        _ address: String, destination: String, path: String, interface: String, method: String, argument: String?,
        timeout: Double = 10
    ) throws(TestSupportError) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
            | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw TestSupportError("cannot connect to \(address): \(message(of: error))")
        }
        defer {
            g_dbus_connection_close_sync(connection, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
        // Floating: the call takes it.
        var parameters: OpaquePointer?
        if let argument {
            var child: OpaquePointer? = g_variant_new_string(argument)
            parameters = g_variant_new_tuple(&child, 1)
        }
        guard let reply = g_dbus_connection_call_sync(
            connection, destination, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE,
            Int32(timeout * 1000), nil, &error
        ) else {
            throw TestSupportError("\(interface).\(method) on \(address): \(message(of: error))")
        }
        defer { g_variant_unref(reply) }
        guard g_variant_n_children(reply) > 0, let value = g_variant_get_child_value(reply, 0) else {
            throw TestSupportError("\(interface).\(method) on \(address) answered nothing")
        }
        return value
    }

    /// `org.freedesktop.DBus.NameHasOwner(name)` on the bus at `address`; `false` when the
    /// bus cannot be asked (it is gone).
    public static func hasOwner(_ name: String, on address: String) -> Bool {
        guard let value = try? daemon(address, "NameHasOwner", name) else { return false }
        defer { g_variant_unref(value) }
        return g_variant_get_boolean(value) != 0
    }

    /// `org.freedesktop.DBus.GetConnectionUnixProcessID(name)` on the bus at `address`: the
    /// process that owns `name` now.
    public static func processID(of name: String, on address: String) throws(TestSupportError) -> pid_t {
        let value = try daemon(address, "GetConnectionUnixProcessID", name)
        defer { g_variant_unref(value) }
        return pid_t(bitPattern: g_variant_get_uint32(value))
    }

    /// `org.a11y.Bus.GetAddress` on the session bus at `address`: where its accessibility
    /// bus is.
    public static func accessibilityBusAddress(on address: String) throws(TestSupportError) -> String {
        let value = try call(address, destination: "org.a11y.Bus", path: "/org/a11y/bus", interface: "org.a11y.Bus",
                             method: "GetAddress", argument: nil)
        defer { g_variant_unref(value) }
        return String(cString: g_variant_get_string(value, nil))
    }

    private static func daemon(_ address: String, _ method: String, _ name: String) throws(TestSupportError) -> OpaquePointer {
        try call(address, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                 interface: "org.freedesktop.DBus", method: method, argument: name)
    }

    private static func message(of error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "no reason given" }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }
}
