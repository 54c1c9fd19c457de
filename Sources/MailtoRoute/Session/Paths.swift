#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration

/// Where mailto-route reads and keeps everything (docs/design.md, Files), by one rule: GLib's
/// (`g_get_home_dir`, `g_get_user_config_dir`, `g_get_user_data_dir`,
/// `g_get_user_state_dir`), which is what GIO itself uses for `mimeapps.list` and the
/// desktop files, so that the config file, the drafts, the outbox, the state file and the
/// handoff files agree, also when `HOME` is unset (GLib then takes the password database's).
public struct Paths: Sendable, Equatable {
    public var home: String
    public var configHome: String
    public var dataHome: String
    public var stateHome: String
    /// `$XDG_CONFIG_DIRS` (default `/etc/xdg`), the most important first: where an
    /// administrator's configuration is (`systemConfigFiles`).
    public var configDirs: [String]
    /// `SSL_CERT_FILE`: trust anchors added to the system's for every account that names
    /// none of its own (`ca-file=`), as OpenSSL's programs read the variable; the way to
    /// trust a private CA for accounts that have no file of their own (GNOME Online Accounts').
    public var defaultCAFile: String?

    public init(home: String, configHome: String, dataHome: String, stateHome: String, configDirs: [String] = [],
                defaultCAFile: String? = nil) {
        self.home = home
        self.configHome = configHome
        self.dataHome = dataHome
        self.stateHome = stateHome
        self.configDirs = configDirs
        self.defaultCAFile = defaultCAFile
    }

    /// This process's, as GLib read them once from its environment.
    public static func current() -> Paths {
        let home = XDGDirectories.home
        // The XDG Base Directory spec: a relative path in a variable is ignored (GLib 2.74
        // still takes it), and the default under the home applies.
        func base(_ value: String, _ relative: String) -> String {
            value.hasPrefix("/") ? value : (home.hasSuffix("/") ? home : home + "/") + relative
        }
        let caFile = getenv("SSL_CERT_FILE").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil }
        return Paths(home: home, configHome: base(XDGDirectories.configHome, ".config"),
                     dataHome: base(XDGDirectories.dataHome, ".local/share"),
                     stateHome: base(XDGDirectories.stateHome, ".local/state"),
                     // The spec ignores relative entries here too.
                     configDirs: XDGDirectories.configDirs.filter { $0.hasPrefix("/") }, defaultCAFile: caFile)
    }

    /// `$XDG_CONFIG_HOME/mailto-route/config` (it may not exist).
    public var configFile: String { configHome + "/mailto-route/config" }

    /// `mailto-route/config` below each of `configDirs` (`/etc/xdg/mailto-route/config`), the
    /// most important first: the system's configuration, read below the user's.
    public var systemConfigFiles: [String] { configDirs.map { $0 + "/mailto-route/config" } }

    /// msmtp's own files, in the order msmtp reads them.
    public var msmtprcFiles: [String] { [home + "/.msmtprc", configHome + "/msmtp/config"] }

    /// The outbox, the drafts and the outcome log.
    public var storage: StorageLocations {
        StorageLocations(stateDirectory: stateHome + "/mailto-route", dataDirectory: dataHome + "/mailto-route")
    }
}
