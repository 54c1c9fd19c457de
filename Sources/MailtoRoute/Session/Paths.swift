#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration

/// Where mailto-route reads and keeps everything (docs/design.md, Files), by one rule
/// (`BaseDirectories`): GLib's (`g_get_home_dir`, `g_get_user_config_dir`,
/// `g_get_user_data_dir`, `g_get_user_state_dir`), which is what GIO itself uses for
/// `mimeapps.list` and the desktop files, a relative value ignored as the XDG spec says, so
/// that the config file, the drafts, the outbox, the state file, the handoff files and what
/// `register` installs agree, also when `HOME` is unset (GLib then takes the password
/// database's).
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

    /// These directories, each by its own name.
    public init(_ directories: BaseDirectories, defaultCAFile: String? = nil) {
        self.init(home: directories.home, configHome: directories.configHome, dataHome: directories.dataHome,
                  stateHome: directories.stateHome, configDirs: directories.configDirs, defaultCAFile: defaultCAFile)
    }

    /// This process's, as GLib read them once from its environment, by the one rule
    /// (`BaseDirectories`: a relative value is ignored, as the XDG spec says).
    public static func current() -> Paths {
        let caFile = getenv("SSL_CERT_FILE").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil }
        return Paths(.current(), defaultCAFile: caFile)
    }

    /// The base directories alone, for what DesktopIntegration keeps and installs
    /// (`Registration`).
    public var directories: BaseDirectories {
        BaseDirectories(home: home, configHome: configHome, dataHome: dataHome, stateHome: stateHome, configDirs: configDirs)
    }

    /// `register` and `unregister`, with their files under these directories.
    public var registration: Registration { Registration(directories) }

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
