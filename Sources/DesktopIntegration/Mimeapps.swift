internal import CGIO
#if canImport(Glibc)
import Glibc
#endif

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
    public static var userListPath: String { userList(named: "mimeapps.list") }

    /// The user's list `name` (`mimeapps.list`, `gnome-mimeapps.list`) where GIO reads it:
    /// in GLib's configuration directory, as GIO takes it.
    static func userList(named name: String) -> String { XDGDirectories.configHome + "/" + name }

    /// The lists GIO reads before `userListPath` (the mime-apps spec: in each directory
    /// the desktop-specific lists come first, for each desktop in `XDG_CURRENT_DESKTOP`)
    /// that name a default for `type` other than `expected`. With `XDG_CURRENT_DESKTOP`
    /// unset there are none.
    public static func overrides(for type: String, expected: String) -> [MimeappsOverride] {
        var result: [MimeappsOverride] = []
        for desktop in XDGDirectories.currentDesktops {
            let path = userList(named: "\(desktop)-mimeapps.list")
            guard let file = try? KeyFile.load(path) else { continue }
            let handlers = file.stringList(defaultsGroup, type)
            if let first = handlers.first, first != expected {
                result.append(MimeappsOverride(path: path, handlers: handlers))
            }
        }
        return result
    }
}

/// One `mimeapps.list` that takes part in choosing a default, as `--check` shows it.
public struct MimeappsList: Equatable, Sendable {
    public var path: String
    /// The desktop of a `<desktop>-mimeapps.list`, `nil` for a plain `mimeapps.list`.
    public var desktop: String?
    /// Its `[Default Applications]` entry for the type, in its order (may be empty).
    public var defaults: [String]
}

extension Mimeapps {
    /// Every `mimeapps.list` that exists where GIO looks, in the order of the mime-apps
    /// spec (the first that names an installed program wins): in the user's config
    /// directory, the system config directories, the user's and the system's
    /// `applications` directories; in each, the desktop-specific lists first, for each
    /// desktop of `XDG_CURRENT_DESKTOP`.
    public static func lists(for type: String) -> [MimeappsList] {
        let directories = [XDGDirectories.configHome] + XDGDirectories.configDirs
            + ([XDGDirectories.dataHome] + XDGDirectories.dataDirs).map { $0 + "/applications" }
        var result: [MimeappsList] = []
        for directory in directories {
            let names = XDGDirectories.currentDesktops.map { ($0 as String?, "\($0)-mimeapps.list") } + [(nil, "mimeapps.list")]
            for (desktop, name) in names {
                let path = directory + "/" + name
                // A list that cannot be read takes no part for GIO either.
                guard let file = try? KeyFile.load(path) else { continue }
                result.append(MimeappsList(path: path, desktop: desktop, defaults: file.stringList(defaultsGroup, type)))
            }
        }
        return result
    }
}

/// Desktop files found by their id, for the cases GIO does not show: an entry it ignores
/// because its program is gone is what makes a default silently not work.
public enum DesktopEntries {
    /// The desktop file of `id` in the user's or the system's `applications`
    /// directories (the first found, as GIO reads them), whether GIO accepts it or not.
    public static func locate(_ id: String) -> String? {
        for directory in [XDGDirectories.dataHome] + XDGDirectories.dataDirs {
            let path = directory + "/applications/" + id
            if access(path, F_OK) == 0 { return path }
        }
        return nil
    }

    /// The program of the desktop file at `path` (the first word of `Exec=`, split with
    /// `g_shell_parse_argv`), or `nil` when it has none.
    public static func program(ofFile path: String) -> String? {
        guard let file = try? KeyFile.load(path),
              let exec = file.string("Desktop Entry", "Exec") else { return nil }
        var count: gint = 0
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        guard g_shell_parse_argv(exec, &count, &argv, nil) != 0 else { return nil }
        return takeStrings(argv).first
    }

    /// Wraps `g_find_program_in_path` (transfer full): where `program` would be run from,
    /// `nil` when it is not there.
    public static func findProgram(_ program: String) -> String? {
        takeString(g_find_program_in_path(program))
    }
}
