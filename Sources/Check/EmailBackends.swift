#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MailtoRoute
import Outbox

extension CheckReport {
    /// Which backend xdg-desktop-portal gives its Email portal, by the rule of the version
    /// installed, and the step that makes mailto-route the one.
    public struct EmailBackend: Sendable {
        /// The `xdg-desktop-portal` program found; `nil`: none is installed.
        public var executable: String?
        public var version: PortalVersion?
        /// Why the version is unknown although the program is there.
        public var versionProblem: String?
        /// Where that version reads `.portal` files.
        public var portalsDirectory = ""
        /// `XDG_CURRENT_DESKTOP` as the portal splits it, and whose environment it is from.
        public var desktops: [String] = []
        public var desktopsFrom = tr("this run")
        /// The portals.conf that is read (1.18 and later).
        public var config: String?
        /// The user's own directory of portals.conf files, the first one searched (1.17 and
        /// later), and the file in it that `mailto-route portal enable` sets the Email line in:
        /// the one read when it is the user's, else a copy named for the desktop.
        public var userConfigDirectory: String?
        public var enableTarget: String?
        /// The names in the portals.conf read that no `.portal` file gives (issue 1455).
        public var missingBackends: [MissingBackend] = []
        /// The backends that offer Email, in the order the portal keeps them.
        public var offering: [PortalBackend] = []
        public var rejected: [PortalBackend.Rejected] = []
        public var winner: PortalBackend?
        /// How the winner was chosen, or why there is none.
        public var how = ""
        /// What makes mailto-route win; empty when it does.
        public var steps: [String] = []

        public var mailtoRouteWins: Bool { winner?.dbusName == EmailBackends.busName }
    }

    /// A key of `[preferred]` naming a backend that has no `.portal` file: xdg-desktop-portal
    /// 1.17.0 to 1.19.0 look it up, find nothing and crash at start-up (their issue 1455,
    /// `find_portal_implementation_iface`), taking every portal down; later ones skip it.
    public struct MissingBackend: Sendable, Equatable {
        /// `default`, or the interface (`org.freedesktop.impl.portal.Email`).
        public var key: String
        public var name: String

        public init(key: String, name: String) {
            self.key = key
            self.name = name
        }
    }
}

/// What the Email backend check reads besides the files: the environment the portal runs
/// with, as far as this run knows it.
public struct PortalEnvironment: Sendable {
    /// `XDG_DESKTOP_PORTAL_DIR`, which 1.16 and 1.18 read instead of their own directory.
    public var portalDirectory: String?
    public var currentDesktop: String?
    public var configHome: String
    public var configDirs: [String]
    public var dataHome: String
    public var dataDirs: [String]

    public init(portalDirectory: String?, currentDesktop: String?, configHome: String, configDirs: [String],
                dataHome: String, dataDirs: [String]) {
        self.portalDirectory = portalDirectory
        self.currentDesktop = currentDesktop
        self.configHome = configHome
        self.configDirs = configDirs
        self.dataHome = dataHome
        self.dataDirs = dataDirs
    }
}

/// mailto-route's Email backend as xdg-desktop-portal sees it.
public enum EmailBackends {
    public static let busName = "org.freedesktop.impl.portal.desktop.mailtoroute"
    /// The file that makes mailto-route the Email backend on xdg-desktop-portal 1.16
    /// (data/00-mailtoroute.portal): first by name, with UseIn naming GNOME and KDE.
    static let firstFileName = "00-mailtoroute.portal"
    public static let interface = "org.freedesktop.impl.portal.Email"
    /// Where distributions put the portal: Debian's libexec, Arch's lib, a source build's.
    public static let executables = ["/usr/libexec/xdg-desktop-portal", "/usr/lib/xdg-desktop-portal",
                                     "/usr/local/libexec/xdg-desktop-portal"]
    /// `--version` answers at once; a portal that hangs is given up on.
    static let versionMilliseconds = 1000

    /// The first of `candidates` that can be run.
    public static func findPortal(_ candidates: [String] = executables) -> String? {
        candidates.first { access($0, X_OK) == 0 }
    }

    /// Everything the check says about the Email backend: `executable` is the portal found
    /// (`nil`: none), `versionOutput` what its `--version` printed (`nil`: it failed, with
    /// `versionProblem`).
    public static func gather(
        executable: String?, versionOutput: String?, versionProblem: String? = nil, environment: PortalEnvironment,
        desktopsFrom: String = tr("this run")
    ) -> CheckReport.EmailBackend {
        var facts = CheckReport.EmailBackend()
        guard let executable else { return facts }
        facts.executable = executable
        guard let output = versionOutput, let version = PortalVersion(versionOutput: output) else {
            facts.versionProblem = versionProblem ?? tr("its --version printed no version")
            return facts
        }
        facts.version = version
        facts.desktopsFrom = desktopsFrom
        // The program's prefix decides its DATADIR and SYSCONFDIR (meson's defaults).
        let prefix = installationPrefix(executable)
        let dataDir = (prefix == "/" ? "" : prefix) + "/share"
        let sysconfDir = prefix == "/usr" || prefix == "/" ? "/etc" : prefix + "/etc"
        let directory = environment.portalDirectory ?? dataDir + "/xdg-desktop-portal/portals"
        facts.portalsDirectory = directory
        let desktops = PortalRules.desktops(environment.currentDesktop, version: version)
        facts.desktops = desktops
        let (backends, rejected) = PortalBackend.load(directory: directory, version: version)
        facts.rejected = rejected
        facts.offering = PortalRules.sorted(backends, desktops: desktops, version: version)
            .filter { $0.interfaces.contains(interface) }
        var configDirectories: [String] = []
        var config: PortalsConf?
        if version.readsPortalsConf {
            let subdirectory = "/xdg-desktop-portal"
            configDirectories = environment.portalDirectory.map { [$0] }
                ?? [environment.configHome + subdirectory] + environment.configDirs.map { $0 + subdirectory }
                + [sysconfDir + subdirectory, environment.dataHome + subdirectory]
                + environment.dataDirs.map { $0 + subdirectory } + [dataDir + subdirectory]
            config = PortalsConf.find(in: configDirectories, desktops: desktops)
            facts.config = config?.path
            facts.userConfigDirectory = configDirectories.first
            facts.enableTarget = configDirectories.first.map {
                enableTarget(config: config?.path, userConfigDirectory: $0, desktops: desktops)
            }
            facts.missingBackends = config.map { missing(in: $0, installed: backends) } ?? []
        }
        let chosen = PortalRules.choose(interface, from: backends, desktops: desktops, version: version, config: config)
        facts.winner = chosen.backend
        facts.how = chosen.how
        if !facts.mailtoRouteWins {
            facts.steps = steps(backends: backends, config: config, desktops: desktops, version: version,
                                directory: directory, prefix: prefix, target: facts.enableTarget)
        }
        return facts
    }

    /// The file `portal enable` writes: the portals.conf read when it is in the user's
    /// directory; else one there named for the first desktop, which that desktop reads
    /// before every other (a plain portals.conf would be read on every desktop, over each
    /// one's own `DESKTOP-portals.conf`).
    static func enableTarget(config: String?, userConfigDirectory: String, desktops: [String]) -> String {
        if let config, config.hasPrefix(userConfigDirectory + "/") { return config }
        return userConfigDirectory + "/" + (desktops.first.map { "\($0)-portals.conf" } ?? "portals.conf")
    }

    /// Each name of `config`'s `[preferred]` that is no installed backend's (`none` and `*`
    /// are not names): `default` first, then the interfaces by name.
    static func missing(in config: PortalsConf, installed: [PortalBackend]) -> [CheckReport.MissingBackend] {
        let names = Set(installed.map(\.name))
        let keyed = (config.defaultPortals.map { [("default", $0)] } ?? []) + config.interfaces.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return keyed.flatMap { key, portals in
            portals.filter { !$0.isEmpty && $0 != "none" && $0 != "*" && !names.contains($0) }
                .map { CheckReport.MissingBackend(key: key, name: $0) }
        }
    }

    /// `/usr` for `/usr/libexec/xdg-desktop-portal` and `/usr/lib/xdg-desktop-portal`.
    static func installationPrefix(_ executable: String) -> String {
        var parts = executable.split(separator: "/").map(String.init)
        parts.removeLast()
        if let last = parts.last, last == "libexec" || last == "lib" { parts.removeLast() }
        return "/" + parts.joined(separator: "/")
    }

    /// The changes that make mailto-route's backend win, each tried with the same rule
    /// (`PortalRules.choose`) before it is offered, so that the advice and the portal agree.
    /// None leaves a file that outlives the package: on 1.17 and later the one step is
    /// `mailto-route portal enable`, which `portal disable` (and `unregister`) takes back.
    static func steps(
        backends: [PortalBackend], config: PortalsConf?, desktops: [String], version: PortalVersion,
        directory: String, prefix: String, target: String?
    ) -> [String] {
        func wins(_ backends: [PortalBackend], _ config: PortalsConf?) -> Bool {
            PortalRules.choose(interface, from: backends, desktops: desktops, version: version, config: config)
                .backend?.dbusName == busName
        }
        let restart = tr("then restart the portal: systemctl --user restart xdg-desktop-portal (or log in again)")
        var steps: [String] = []
        var installed = backends
        let ours: PortalBackend
        // Ours by the name portals.conf gives it (mailtoroute.portal), not the 1.16 file's.
        let mine = backends.filter { $0.dbusName == busName && $0.interfaces.contains(interface) }
        if let found = mine.first(where: { $0.fileName == "mailtoroute.portal" }) ?? mine.first {
            ours = found
        } else {
            ours = PortalBackend(fileName: "mailtoroute.portal", dbusName: busName, interfaces: [interface], useIn: [])
            installed.append(ours)
            steps.append(tr("install data/mailtoroute.portal to %@/ (make install PREFIX=%@: the portal reads no "
                + "other directory)", directory, prefix))
        }
        if wins(installed, config) { return steps + [restart] }
        if version.readsPortalsConf, let target {
            var chosen = config ?? PortalsConf(path: target, interfaces: [:], defaultPortals: nil)
            chosen.path = target
            chosen.interfaces[interface] = [ours.name]
            guard wins(installed, chosen) else { return steps }
            return steps + [tr("run mailto-route portal enable: it sets %@=%@ in %@ (mailto-route portal disable takes it back)",
                               interface, ours.name, target), restart]
        }
        // 1.16 has no configuration: the installed .portal files alone decide (UseIn, then
        // the file name), and the one that can change that is the package's own.
        let first = PortalBackend(fileName: firstFileName, dbusName: busName, interfaces: [interface], useIn: ["gnome", "KDE"])
        if !installed.contains(where: { $0.fileName == firstFileName }), wins(installed + [first], config) {
            return steps + [tr("install data/%@ to %@/ (the package does, and make install PREFIX=%@): on xdg-desktop-portal %@ "
                + "it makes mailto-route the Email backend", firstFileName, directory, prefix, version), restart]
        }
        let ahead = PortalRules.choose(interface, from: installed, desktops: desktops, version: version, config: nil).backend
        return steps + [tr("xdg-desktop-portal %@ has no setting for this: the .portal files in %@ decide, and they give "
            + "it to %@, not to %@, the file mailto-route installs", version, directory, ahead?.fileName ?? "?", ours.fileName)]
    }
}
