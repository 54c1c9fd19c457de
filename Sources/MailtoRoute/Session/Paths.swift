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

    public init(home: String, configHome: String, dataHome: String, stateHome: String) {
        self.home = home
        self.configHome = configHome
        self.dataHome = dataHome
        self.stateHome = stateHome
    }

    /// This process's, as GLib read them once from its environment.
    public static func current() -> Paths {
        let home = XDGDirectories.home
        // The XDG Base Directory spec: a relative path in a variable is ignored (GLib 2.74
        // still takes it), and the default under the home applies.
        func base(_ value: String, _ relative: String) -> String {
            value.hasPrefix("/") ? value : (home.hasSuffix("/") ? home : home + "/") + relative
        }
        return Paths(home: home, configHome: base(XDGDirectories.configHome, ".config"),
                     dataHome: base(XDGDirectories.dataHome, ".local/share"),
                     stateHome: base(XDGDirectories.stateHome, ".local/state"))
    }

    /// `$XDG_CONFIG_HOME/mailto-route/config` (it may not exist).
    public var configFile: String { configHome + "/mailto-route/config" }

    /// msmtp's own files, in the order msmtp reads them.
    public var msmtprcFiles: [String] { [home + "/.msmtprc", configHome + "/msmtp/config"] }

    /// The outbox, the drafts and the outcome log.
    public var storage: StorageLocations {
        StorageLocations(stateDirectory: stateHome + "/mailto-route", dataDirectory: dataHome + "/mailto-route")
    }
}
