internal import CGIO

/// GIO and GObject, opened with `dlopen` the first time something needs them (see
/// `CGIO/shim.h` for why: a direct send never does), and never unloaded. GLib itself is
/// linked.
enum GIOLibrary {
    /// The one table of entry points in the process, or the reason GIO could not be loaded.
    /// `mr_gio_load` fills it completely or not at all; it is never written again and never
    /// freed, and owners keep this pointer, never a copy of the table. `nonisolated(unsafe)`
    /// because a pointer is not `Sendable`: Swift initialises the global once, thread-safely,
    /// and the table behind it is only ever read after that.
    nonisolated(unsafe) private static let shared: Result<UnsafePointer<mr_gio_api>, DesktopError> = {
        let table = UnsafeMutablePointer<mr_gio_api>.allocate(capacity: 1)
        if let failure = mr_gio_load(table) {
            table.deallocate()
            return .failure(DesktopError(.configuration, "cannot load GIO: \(String(cString: failure))"))
        }
        return .success(UnsafePointer(table))
    }()

    /// The loaded table; throws when GIO cannot be loaded.
    static func load() throws(DesktopError) -> UnsafePointer<mr_gio_api> {
        try shared.get()
    }
}
