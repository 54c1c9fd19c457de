internal import CGIO

/// The freedesktop Secret Service (gnome-keyring, KeePassXC...) over D-Bus with GDBus: the
/// one lookup mailto-route needs, a password by attributes, as msmtp stores it
/// (`host`, `service=smtp`, `user`). Uses the `plain` session algorithm: the secret
/// crosses the private session bus only, as with `secret-tool`.
public enum SecretService {
    static let bus = "org.freedesktop.secrets"
    static let path = "/org/freedesktop/secrets"
    static let service = "org.freedesktop.Secret.Service"
    static let timeoutMilliseconds: Int32 = 5000

    /// The secret of the first unlocked item whose attributes match, as UTF-8 text;
    /// `nil` when no item matches. Throws when there is no session bus or Secret Service,
    /// or when the only matches are locked (unlocking needs a prompt, which a send from a
    /// script cannot show).
    public static func lookup(_ attributes: [String: String]) throws(SecretServiceError) -> String? {
        let gio: mr_gio_api
        do { gio = try GIOLibrary.load() } catch { throw SecretServiceError(message: error.message) }
        var error: UnsafeMutablePointer<GError>?
        // Wraps `g_bus_get_sync` (transfer full).
        guard let connection = gio.g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            throw SecretServiceError(message: "no session bus: \(takeErrorMessage(error))")
        }
        defer { gio.g_object_unref(UnsafeMutableRawPointer(connection)) }

        // OpenSession("plain", <"">) -> (v output, o session)
        let open = try call(gio, connection, path, service, "OpenSession",
                            tuple([g_variant_new_string("plain"), g_variant_new_variant(g_variant_new_string(""))]))
        let session = objectPath(child(open, 1))
        g_variant_unref(open)
        defer {
            if let closed = try? call(gio, connection, session, "org.freedesktop.Secret.Session", "Close", tuple([])) {
                g_variant_unref(closed)
            }
        }

        // SearchItems(a{ss} attributes) -> (ao unlocked, ao locked)
        let entries = attributes.sorted { $0.key < $1.key }.map { key, value in
            g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_string(value))
        }
        let entryType = g_variant_type_new("{ss}")
        defer { g_variant_type_free(entryType) }
        let search = try call(gio, connection, path, service, "SearchItems", tuple([array(entryType, entries)]))
        defer { g_variant_unref(search) }
        let unlocked = child(search, 0)
        let locked = child(search, 1)
        defer {
            g_variant_unref(unlocked)
            g_variant_unref(locked)
        }
        guard g_variant_n_children(unlocked) > 0 else {
            if g_variant_n_children(locked) > 0 {
                throw SecretServiceError(message: "the keyring holding the password is locked")
            }
            return nil
        }

        // GetSecrets(ao items, o session) -> (a{o(oayays)} secrets)
        let item = child(unlocked, 0)
        let pathType = g_variant_type_new("o")
        defer { g_variant_type_free(pathType) }
        let secrets = try call(gio, connection, path, service, "GetSecrets",
                               tuple([array(pathType, [item]), g_variant_new_object_path(session)]))
        defer { g_variant_unref(secrets) }
        let map = child(secrets, 0)
        defer { g_variant_unref(map) }
        guard g_variant_n_children(map) > 0 else { return nil }
        let entry = child(map, 0)
        let secret = child(entry, 1)
        let value = child(secret, 2)
        defer {
            g_variant_unref(value)
            g_variant_unref(secret)
            g_variant_unref(entry)
        }
        var count: gsize = 0
        guard let bytes = g_variant_get_fixed_array(value, &count, 1) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }

    // MARK: - GVariant and GDBus helpers

    /// Wraps `g_dbus_connection_call_sync` (the reply is transfer full; `parameters`, floating,
    /// is consumed).
    private static func call(
        _ gio: mr_gio_api, _ connection: OpaquePointer, _ object: String, _ interface: String, _ method: String,
        _ parameters: OpaquePointer?
    ) throws(SecretServiceError) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let reply = gio.g_dbus_connection_call_sync(connection, bus, object, interface, method, parameters, nil,
                                                          G_DBUS_CALL_FLAGS_NONE, timeoutMilliseconds, nil, &error)
        else {
            throw SecretServiceError(message: "\(method): \(takeErrorMessage(error))")
        }
        return reply
    }

    /// Wraps `g_variant_new_tuple` over floating children (which it sinks).
    private static func tuple(_ children: [OpaquePointer?]) -> OpaquePointer? {
        var children = children
        return g_variant_new_tuple(&children, gsize(children.count))
    }

    private static func array(_ type: OpaquePointer?, _ children: [OpaquePointer?]) -> OpaquePointer? {
        var children = children
        return g_variant_new_array(type, &children, gsize(children.count))
    }

    /// Wraps `g_variant_get_child_value` (transfer full).
    private static func child(_ value: OpaquePointer, _ index: Int) -> OpaquePointer {
        g_variant_get_child_value(value, gsize(index))
    }

    /// The object path in `value` (consumed).
    private static func objectPath(_ value: OpaquePointer) -> String {
        defer { g_variant_unref(value) }
        return g_variant_get_string(value, nil).map { String(cString: $0) } ?? "/"
    }
}

/// Why the Secret Service could not be asked.
public struct SecretServiceError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
