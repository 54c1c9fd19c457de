internal import CGIO
#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// The XDG base directories as GLib (and so GIO) sees them in this process: read once
/// from the environment, exactly the ones GIO's lookups and writes use; for telling what GIO
/// reads (`Mimeapps`). What mailto-route keeps and installs is under `BaseDirectories`.
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

/// The user's base directories by one rule, for every file mailto-route keeps or installs
/// (MailtoRoute's `Paths` is built on it): GLib's values (`XDGDirectories`), which are
/// GIO's, but a relative one ignored, as the XDG Base Directory spec says ("an
/// implementation ... should consider the path invalid and ignore it"; GLib 2.74 still
/// takes it, relative to whatever the current directory is), its default under the home
/// applying.
public struct BaseDirectories: Sendable, Equatable {
    public var home: String
    public var configHome: String
    public var dataHome: String
    public var stateHome: String
    /// `$XDG_CONFIG_DIRS` (default `/etc/xdg`), the most important first.
    public var configDirs: [String]

    public init(home: String, configHome: String, dataHome: String, stateHome: String, configDirs: [String] = []) {
        self.home = home
        self.configHome = configHome
        self.dataHome = dataHome
        self.stateHome = stateHome
        self.configDirs = configDirs
    }

    /// This process's, from GLib's values (read once from its environment).
    public static func current() -> BaseDirectories {
        let home = XDGDirectories.home
        func base(_ value: String, _ relative: String) -> String {
            value.hasPrefix("/") ? value : (home.hasSuffix("/") ? home : home + "/") + relative
        }
        return BaseDirectories(home: home, configHome: base(XDGDirectories.configHome, ".config"),
                               dataHome: base(XDGDirectories.dataHome, ".local/share"),
                               stateHome: base(XDGDirectories.stateHome, ".local/state"),
                               // The spec ignores relative entries here too.
                               configDirs: XDGDirectories.configDirs.filter { $0.hasPrefix("/") })
    }
}
