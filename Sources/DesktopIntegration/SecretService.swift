internal import CGIO

/// The freedesktop Secret Service (gnome-keyring, KeePassXC...) through libsecret, the
/// library made for it: the one lookup mailto-route needs, a password by attributes, as
/// msmtp and `secret-tool` store it (`host`, `service=smtp`, `user`). libsecret is loaded
/// on the first lookup (`SecretLibrary`); its session is `dh-ietf1024-sha256-aes128-cbc-pkcs7`
/// where the service offers it, else `plain`.
///
/// Every bus call has a deadline: libsecret's asynchronous calls run on a main context of
/// their own, each with a `GCancellable` that is cancelled when its time is up, so a stuck
/// keyring daemon or bus costs `timeout` seconds, never a hang.
public enum SecretService {
    /// Seconds for the calls that need nobody: connecting, searching, reading the secret.
    public static let lookupTimeout: Double = 5
    /// Seconds for a person to answer the keyring's own unlock prompt.
    public static let promptTimeout: Double = 120

    /// The secret of the first item whose attributes match, as UTF-8 text; `nil` when no
    /// item matches. A match behind a locked keyring is unlocked through the keyring's own
    /// prompt when `mayPrompt` (the run has a display: `Session.Environment`), given
    /// `promptTimeout` seconds; without one it is a configuration error that says the
    /// keyring is locked. Throws (kind `configuration`, with libsecret's own text) when
    /// there is no session bus or Secret Service, or when it did not answer within
    /// `timeout` seconds.
    ///
    /// Wraps `secret_service_open`, `secret_service_search`, `secret_service_unlock`,
    /// `secret_item_load_secrets` and `secret_item_get_secret`.
    public static func lookup(
        _ attributes: [String: String], mayPrompt: Bool,
        timeout: Double = lookupTimeout, promptTimeout: Double = promptTimeout
    ) throws(DesktopError) -> String? {
        let keyring = try KeyringLookup()
        return try keyring.context.run { () throws(DesktopError) -> String? in
            let service = try keyring.open(seconds: timeout)
            guard let item = try keyring.search(service, attributes, seconds: timeout) else { return nil }
            if keyring.secret.pointee.secret_item_get_locked(item.pointer) != 0 {
                guard mayPrompt else {
                    throw DesktopError(.configuration,
                                       "the keyring holding the password is locked, and without a display it cannot ask to unlock it")
                }
                try keyring.unlock(item, in: service, seconds: promptTimeout)
            }
            return try keyring.readSecret(of: item, seconds: timeout)
        }
    }
}

extension SecretService {
    /// Stores `secret` under `attributes` (msmtp's: `host`, `service=smtp`, `user`, so that
    /// msmtp, `secret-tool` and `lookup` find it) in the default collection (the login
    /// keyring), replacing an item with the same attributes; `label` is what the keyring's
    /// own window shows. A locked collection is unlocked through the keyring's prompt when
    /// `mayPrompt`. Throws (kind `configuration`, with libsecret's own text) when there is
    /// no Secret Service or it refused; the secret never appears in an error.
    ///
    /// Wraps `secret_service_open`, `secret_value_new` and `secret_service_store`.
    public static func store(
        _ secret: String, attributes: [String: String], label: String, mayPrompt: Bool,
        timeout: Double = lookupTimeout, promptTimeout: Double = promptTimeout
    ) throws(DesktopError) {
        let keyring = try KeyringLookup()
        try keyring.context.run { () throws(DesktopError) in
            let service = try keyring.open(seconds: timeout)
            // Storing into a locked collection makes libsecret ask the service to unlock
            // it, which shows the keyring's prompt: only worth waiting for with a display.
            try keyring.store(secret, attributes: attributes, label: label, in: service,
                              seconds: mayPrompt ? promptTimeout : timeout)
        }
    }
}

// MARK: - One lookup

/// libsecret's `SecretService` GObject, named apart from the enum above.
private typealias ServiceObject = CGIO.SecretService

/// One lookup's libraries, main context and calls. Each call is started on `context` (the
/// thread default inside `lookup`) and waited for with `MainContext.wait`.
private final class KeyringLookup {
    let gio: UnsafePointer<mr_gio_api>
    let secret: UnsafePointer<mr_secret_api>
    let context = MainContext()

    init() throws(DesktopError) {
        gio = try GIOLibrary.load()
        secret = try SecretLibrary.load()
    }

    /// A connection of our own to the Secret Service (`secret_service_open`, transfer
    /// full): not libsecret's process-wide `secret_service_get`, whose proxy would stay
    /// bound to this lookup's main context after it is gone.
    func open(seconds: Double) throws(DesktopError) -> ObjectReference<ServiceObject> {
        let secret = secret
        return try perform("connecting", seconds: seconds) { cancellable, userData in
            secret.pointee.secret_service_open(secret.pointee.secret_service_get_type(), nil, SECRET_SERVICE_NONE,
                                               cancellable, AsyncCall.ready, userData)
        } finish: { result in
            var error: UnsafeMutablePointer<GError>?
            guard let service = secret.pointee.secret_service_open_finish(result, &error) else {
                return .failure(takeError(error, .configuration, "cannot connect to the Secret Service"))
            }
            return .success(ObjectReference(adopting: service, gio: self.gio))
        }
    }

    /// The first item whose attributes match, unlocked ones first (SECRET_SEARCH_ALL is not
    /// asked for, so libsecret returns at most one); `nil` when none matches. No schema:
    /// the attributes alone are matched, as `secret-tool lookup` does.
    func search(
        _ service: ObjectReference<ServiceObject>, _ attributes: [String: String], seconds: Double
    ) throws(DesktopError) -> ObjectReference<SecretItem>? {
        let secret = secret
        let gio = gio
        // Keys and values copied in, freed with the table (`g_hash_table_new_full`).
        let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)
        defer { g_hash_table_unref(table) }
        for (key, value) in attributes {
            g_hash_table_insert(table, g_strdup(key), g_strdup(value))
        }
        return try perform("the search", seconds: seconds) { cancellable, userData in
            secret.pointee.secret_service_search(service.pointer, nil, table, SECRET_SEARCH_NONE, cancellable,
                                                 AsyncCall.ready, userData)
        } finish: { result in
            var error: UnsafeMutablePointer<GError>?
            // transfer full: the list and a reference to each item.
            let items = secret.pointee.secret_service_search_finish(service.pointer, result, &error)
            defer { g_list_free_full(items, gio.pointee.g_object_unref) }
            if error != nil {
                return .failure(takeError(error, .configuration, "the Secret Service's search failed"))
            }
            guard let first = items?.pointee.data else { return .success(nil) }
            return .success(ObjectReference(retaining: first.assumingMemoryBound(to: SecretItem.self), gio: gio))
        }
    }

    /// Stores `secret` with `secret_service_store` (no schema: the attributes alone, as
    /// `secret-tool store` without one; NULL collection: the default one).
    func store(
        _ value: String, attributes: [String: String], label: String, in service: ObjectReference<ServiceObject>,
        seconds: Double
    ) throws(DesktopError) {
        let secret = secret
        let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)
        defer { g_hash_table_unref(table) }
        for (key, value) in attributes {
            g_hash_table_insert(table, g_strdup(key), g_strdup(value))
        }
        let bytes = Array(value.utf8)
        // transfer full: the value copies the bytes; unref'd once the call has it.
        let secretValue = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: gchar.self) { secret.pointee.secret_value_new($0.baseAddress, gssize(buffer.count), "text/plain") }
        }
        defer { secret.pointee.secret_value_unref(UnsafeMutableRawPointer(secretValue)) }
        try perform("storing the password", seconds: seconds) { cancellable, userData in
            secret.pointee.secret_service_store(service.pointer, nil, table, nil, label, secretValue, cancellable,
                                                AsyncCall.ready, userData)
        } finish: { result -> Result<Void, DesktopError> in
            var error: UnsafeMutablePointer<GError>?
            if secret.pointee.secret_service_store_finish(service.pointer, result, &error) == 0 {
                return .failure(takeError(error, .configuration, "the Secret Service did not store the password"))
            }
            return .success(())
        }
    }

    /// Unlocks `item`'s keyring through the Secret Service's own prompt (`Unlock`, then the
    /// prompt object's `Prompt` and its `Completed` signal), which libsecret dismisses if
    /// nobody answered within `seconds`.
    func unlock(
        _ item: ObjectReference<SecretItem>, in service: ObjectReference<ServiceObject>, seconds: Double
    ) throws(DesktopError) {
        let secret = secret
        let objects = g_list_prepend(nil, gpointer(item.pointer))
        defer { g_list_free(objects) }
        let unlocked = try perform("the unlock prompt", seconds: seconds) { cancellable, userData in
            secret.pointee.secret_service_unlock(service.pointer, objects, cancellable, AsyncCall.ready, userData)
        } finish: { result -> Result<gint, DesktopError> in
            var error: UnsafeMutablePointer<GError>?
            let count = secret.pointee.secret_service_unlock_finish(service.pointer, result, nil, &error)
            if error != nil {
                return .failure(takeError(error, .configuration, "the keyring holding the password could not be unlocked"))
            }
            return .success(count)
        }
        guard unlocked > 0 else {
            throw DesktopError(.configuration, "the keyring holding the password is locked: its unlock prompt was dismissed")
        }
    }

    /// `item`'s secret (`secret_item_load_secrets`, then `secret_item_get_secret`, transfer
    /// full), as UTF-8 text.
    func readSecret(of item: ObjectReference<SecretItem>, seconds: Double) throws(DesktopError) -> String {
        let secret = secret
        let items = g_list_prepend(nil, gpointer(item.pointer))
        defer { g_list_free(items) }
        try perform("reading the password", seconds: seconds) { cancellable, userData in
            secret.pointee.secret_item_load_secrets(items, cancellable, AsyncCall.ready, userData)
        } finish: { result -> Result<Void, DesktopError> in
            var error: UnsafeMutablePointer<GError>?
            if secret.pointee.secret_item_load_secrets_finish(result, &error) == 0 {
                return .failure(takeError(error, .configuration, "the password could not be read from the Secret Service"))
            }
            return .success(())
        }
        // NULL when the item is still locked: libsecret loads no secret of a locked item.
        guard let value = secret.pointee.secret_item_get_secret(item.pointer) else {
            throw DesktopError(.configuration, "the keyring holding the password is locked")
        }
        defer { secret.pointee.secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length: gsize = 0
        guard let bytes = secret.pointee.secret_value_get(value, &length) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
    }

    /// Starts one asynchronous libsecret call with `start(cancellable, userData)` (which
    /// passes `AsyncCall.ready` as the callback) and waits at most `seconds` for it; `finish`
    /// runs in the callback, where the call's `_finish` function is called.
    private func perform<Value>(
        _ what: String, seconds: Double,
        start: (UnsafeMutablePointer<GCancellable>?, gpointer) -> Void,
        finish: @escaping (OpaquePointer?) -> Result<Value, DesktopError>
    ) throws(DesktopError) -> Value {
        let cancellable = Cancellable(gio: gio)
        var outcome: Result<Value, DesktopError>?
        let call = AsyncCall { _, result in outcome = finish(result) }
        start(cancellable.pointer, call.userData)
        guard context.wait(for: call, cancelling: cancellable, seconds: seconds), let outcome else {
            throw DesktopError(.configuration, "the Secret Service did not answer (\(what)) within \(seconds.secondsText) s")
        }
        return try outcome.get()
    }
}

/// The one Swift owner of a reference to a GObject (a `SecretService`, a `SecretItem`),
/// dropped with `g_object_unref` in `deinit`.
private final class ObjectReference<Object> {
    let pointer: UnsafeMutablePointer<Object>
    private let gio: UnsafePointer<mr_gio_api>

    /// Takes over a reference the caller was given (transfer full).
    init(adopting pointer: UnsafeMutablePointer<Object>, gio: UnsafePointer<mr_gio_api>) {
        self.pointer = pointer
        self.gio = gio
    }

    /// Takes a reference of its own (`g_object_ref`) to an object it was lent (transfer none).
    init(retaining pointer: UnsafeMutablePointer<Object>, gio: UnsafePointer<mr_gio_api>) {
        self.pointer = pointer
        self.gio = gio
        _ = gio.pointee.g_object_ref(UnsafeMutableRawPointer(pointer))
    }

    deinit {
        gio.pointee.g_object_unref(UnsafeMutableRawPointer(pointer))
    }
}
