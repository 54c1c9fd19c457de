/// A desktop-specific `<desktop>-mimeapps.list` that GIO reads before the
/// `mimeapps.list` that `g_app_info_set_as_default_for_type` writes, and so wins over it.
public struct MimeappsOverride: Equatable, Sendable {
    public var path: String
    /// Its `[Default Applications]` entry for the type, in its order.
    public var handlers: [String]
}

/// Which `mimeapps.list` files decide a default. The lookup itself is GIO's; this only
/// says, by reading the same files GIO reads (with GLib's key-file reader), why a default
/// is not the one that was set.
public enum Mimeapps {
    static let defaultsGroup = "Default Applications"
    static let addedGroup = "Added Associations"

    /// The file GIO writes defaults and associations to.
    public static var userListPath: String { XDGDirectories.configHome + "/mimeapps.list" }

    /// The lists GIO reads before `userListPath` (the mime-apps spec: in each directory
    /// the desktop-specific lists come first, for each desktop in `XDG_CURRENT_DESKTOP`)
    /// that name a default for `type` other than `expected`. With `XDG_CURRENT_DESKTOP`
    /// unset there are none.
    public static func overrides(for type: String, expected: String) -> [MimeappsOverride] {
        var result: [MimeappsOverride] = []
        for desktop in XDGDirectories.currentDesktops {
            let path = XDGDirectories.configHome + "/\(desktop)-mimeapps.list"
            guard let file = try? KeyFile.load(path) else { continue }
            let handlers = file.stringList(defaultsGroup, type)
            if let first = handlers.first, first != expected {
                result.append(MimeappsOverride(path: path, handlers: handlers))
            }
        }
        return result
    }
}
