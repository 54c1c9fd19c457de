internal import CGIO
import MailtoCore

/// GIO and GObject, opened with `dlopen` the first time something needs them (see
/// `CGIO/shim.h` for why: a direct send never does), and never unloaded. GLib itself is
/// linked.
enum GIOLibrary {
    /// The one table of entry points in the process, or the reason GIO could not be loaded
    /// (see `loadTable`). `nonisolated(unsafe)` because a pointer is not `Sendable`: Swift
    /// initialises the global once, thread-safely, and the table behind it is only ever
    /// read after that.
    nonisolated(unsafe) private static let shared = loadTable("GIO") { mr_gio_load($0) }

    /// The loaded table; throws when GIO cannot be loaded.
    static func load() throws(DesktopError) -> UnsafePointer<mr_gio_api> {
        try shared.get()
    }
}

/// Loads a table of C entry points with its `mr_*_load` function, as every such table here
/// is loaded: into memory of its own, filled completely or not at all (`MR_SYM` in
/// `CGIO/shim.h`), then never written again and never freed, so that owners keep a pointer
/// to the one table and never a copy of it.
func loadTable<Table>(
    _ library: String, with load: (UnsafeMutablePointer<Table>) -> UnsafePointer<CChar>?
) -> Result<UnsafePointer<Table>, DesktopError> {
    let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
    if let failure = load(table) {
        table.deallocate()
        return .failure(DesktopError(.configuration, tr("cannot load %@: %@", library, String(cString: failure))))
    }
    return .success(UnsafePointer(table))
}
