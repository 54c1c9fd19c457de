internal import CGIO
#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// The XDG base directories as GLib (and so GIO) sees them in this process: read once
/// from the environment, exactly the ones GIO's lookups and writes use.
public enum XDGDirectories {
    /// Wraps `g_get_home_dir` (transfer none): `HOME`, else the password database's entry.
    public static var home: String { borrowString(g_get_home_dir()) ?? "/" }
    /// Wraps `g_get_user_config_dir` (transfer none).
    public static var configHome: String { borrowString(g_get_user_config_dir()) ?? "" }
    /// Wraps `g_get_user_data_dir` (transfer none).
    public static var dataHome: String { borrowString(g_get_user_data_dir()) ?? "" }
    /// Wraps `g_get_user_state_dir` (transfer none).
    public static var stateHome: String { borrowString(g_get_user_state_dir()) ?? "" }

    /// Wraps `g_get_system_config_dirs` (transfer none).
    public static var configDirs: [String] { strings(g_get_system_config_dirs()) }
    /// Wraps `g_get_system_data_dirs` (transfer none).
    public static var dataDirs: [String] { strings(g_get_system_data_dirs()) }

    /// The desktops named in `XDG_CURRENT_DESKTOP`, lower-cased as GIO compares them;
    /// empty when it is unset (a bare window manager).
    public static var currentDesktops: [String] {
        guard let value = borrowString(g_getenv("XDG_CURRENT_DESKTOP")) else { return [] }
        return value.split(separator: ":").map { String($0).lowercased() }
    }

    /// Creates `path` and its parents (mode 0700, as the XDG spec asks), wraps
    /// `g_mkdir_with_parents`.
    public static func makeDirectory(_ path: String) throws(DesktopError) {
        if g_mkdir_with_parents(path, 0o700) != 0 {
            throw DesktopError(.configuration, tr("cannot create %@: %@", path, systemErrorText(errno)))
        }
    }
}
