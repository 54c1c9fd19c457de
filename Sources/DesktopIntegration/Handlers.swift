internal import CGIO

/// Finding the programs that handle a URI scheme or content type, through GIO only: GIO
/// reads `mimeapps.list` and the desktop files, with every rule of the freedesktop
/// specifications, so mailto-route never reads them itself for a lookup.
public enum Handlers {
    /// The content type GIO files `mailto:` handlers under.
    public static let mailtoType = "x-scheme-handler/mailto"

    /// Throws why GIO cannot be loaded (it is opened on first use: `CGIO/shim.h`). The
    /// lookups below then find nothing; a caller that would report "no mail program"
    /// asks this first, to report the real reason.
    public static func checkGIO() throws(DesktopError) {
        _ = try GIOLibrary.load()
    }

    /// Wraps `g_app_info_get_default_for_uri_scheme` (transfer full).
    public static func defaultForScheme(_ scheme: String) -> AppInfo? {
        guard let gio = try? GIOLibrary.load() else { return nil }
        return gio.pointee.g_app_info_get_default_for_uri_scheme(scheme).map { AppInfo(adopting: $0, gio: gio) }
    }

    /// Wraps `g_app_info_get_default_for_type(type, FALSE)` (transfer full).
    public static func defaultForType(_ type: String) -> AppInfo? {
        guard let gio = try? GIOLibrary.load() else { return nil }
        return gio.pointee.g_app_info_get_default_for_type(type, 0).map { AppInfo(adopting: $0, gio: gio) }
    }

    /// Every program that says it handles `type`: the recommended ones first
    /// (`g_app_info_get_recommended_for_type`), then the rest of
    /// `g_app_info_get_all_for_type`; each once, in GIO's order.
    public static func candidates(forType type: String) -> [AppInfo] {
        guard let gio = try? GIOLibrary.load() else { return [] }
        var seen = Set<String>()
        var result: [AppInfo] = []
        for app in adoptList(gio.pointee.g_app_info_get_recommended_for_type(type), gio: gio)
            + adoptList(gio.pointee.g_app_info_get_all_for_type(type), gio: gio) {
            let key = app.id ?? app.executable
            if seen.insert(key).inserted { result.append(app) }
        }
        return result
    }

    /// Walks a `GList` of `GAppInfo *` (transfer full): each element gets a Swift owner of
    /// its own reference, then the list and its references are freed.
    private static func adoptList(_ list: UnsafeMutablePointer<GList>?, gio: UnsafePointer<mr_gio_api>) -> [AppInfo] {
        var result: [AppInfo] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data {
                result.append(AppInfo(retaining: OpaquePointer(data), gio: gio))
            }
            node = current.pointee.next
        }
        g_list_free_full(list, gio.pointee.g_object_unref)
        return result
    }
}
