internal import CGIO

/// GIO and GObject, opened with `dlopen` the first time something needs them (see
/// `CGIO/shim.h` for why: a direct send never does), and never unloaded. GLib itself is
/// linked.
enum GIOLibrary {
    /// The entry points, or the reason GIO could not be loaded. Swift initialises globals
    /// once, thread-safely; the table is immutable after loading.
    static let shared: Result<mr_gio_api, DesktopError> = {
        let table = UnsafeMutablePointer<mr_gio_api>.allocate(capacity: 1)
        defer { table.deallocate() }
        if let failure = mr_gio_load(table) {
            return .failure(DesktopError(.configuration, "cannot load GIO: \(String(cString: failure))"))
        }
        // mr_gio_load filled every field.
        return .success(table.pointee)
    }()

    /// The loaded table; throws when GIO cannot be loaded.
    static func load() throws(DesktopError) -> mr_gio_api {
        try shared.get()
    }
}
