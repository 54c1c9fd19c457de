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
        public var desktopsFrom = "this run"
        /// The portals.conf that is read (1.18 and later).
        public var config: String?
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
        desktopsFrom: String = "this run"
    ) -> CheckReport.EmailBackend {
        var facts = CheckReport.EmailBackend()
        guard let executable else { return facts }
        facts.executable = executable
        guard let output = versionOutput, let version = PortalVersion(versionOutput: output) else {
            facts.versionProblem = versionProblem ?? "its --version printed no version"
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
        }
        let chosen = PortalRules.choose(interface, from: backends, desktops: desktops, version: version, config: config)
        facts.winner = chosen.backend
        facts.how = chosen.how
        if !facts.mailtoRouteWins {
            facts.steps = steps(backends: backends, config: config, desktops: desktops, version: version,
                                directory: directory, prefix: prefix, dataDir: dataDir,
                                userConfigDirectory: configDirectories.first ?? "")
        }
        return facts
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
    static func steps(
        backends: [PortalBackend], config: PortalsConf?, desktops: [String], version: PortalVersion,
        directory: String, prefix: String, dataDir: String, userConfigDirectory: String
    ) -> [String] {
        func wins(_ backends: [PortalBackend], _ config: PortalsConf?) -> Bool {
            PortalRules.choose(interface, from: backends, desktops: desktops, version: version, config: config)
                .backend?.dbusName == busName
        }
        let restart = "then restart the portal: systemctl --user restart xdg-desktop-portal (or log in again)"
        var steps: [String] = []
        var installed = backends
        let ours: PortalBackend
        if let found = backends.first(where: { $0.dbusName == busName && $0.interfaces.contains(interface) }) {
            ours = found
        } else {
            ours = PortalBackend(fileName: "mailtoroute.portal", dbusName: busName, interfaces: [interface], useIn: [])
            installed.append(ours)
            steps.append("install data/mailtoroute.portal to \(directory)/ (make install PREFIX=\(prefix): the portal reads no other directory)")
        }
        if wins(installed, config) { return steps + [restart] }
        let others = installed.filter { $0.dbusName != busName }
        if version.readsPortalsConf {
            let line = "org.freedesktop.impl.portal.Email=mailtoroute"
            var chosen = config ?? PortalsConf(path: userConfigDirectory + "/portals.conf", interfaces: [:], defaultPortals: nil)
            chosen.interfaces[interface] = [ours.name]
            if let config {
                let folder = String(config.path[..<(config.path.lastIndex(of: "/") ?? config.path.endIndex)])
                steps.append(folder == userConfigDirectory
                    ? "set \(line) in the [preferred] group of \(config.path)"
                    : "copy \(config.path) to \(userConfigDirectory)/ and set \(line) in its [preferred] group "
                        + "(the copy is read instead of it, and keeps its other choices)")
            } else {
                steps.append("create \(userConfigDirectory)/portals.conf holding [preferred] and \(line) "
                             + "(the example \(dataDir)/doc/mailto-route/mailtoroute-portals.conf)")
            }
            return wins(installed, chosen) ? steps + [restart] : steps
        }
        // 1.16 has no configuration: only UseIn and the file name decide.
        let desktop = desktops.first
        if let desktop {
            var named = ours
            named.useIn = (ours.useIn ?? []) + [desktop]
            if wins(others + [named], nil) {
                return steps + ["as root, add \(desktop) to UseIn= of \(directory)/\(ours.fileName)", restart]
            }
        }
        var first = ours
        first.fileName = "00-mailtoroute.portal"
        first.useIn = desktop.map { [$0] } ?? []
        let ahead = PortalRules.choose(interface, from: others, desktops: desktops, version: version, config: nil).backend
        if wins(others + [first], nil) {
            return steps + ["as root, copy \(directory)/\(ours.fileName) to \(directory)/\(first.fileName)"
                + (desktop.map { " with UseIn=\($0)" } ?? "")
                + ": xdg-desktop-portal \(version) takes the first file by name"
                + (ahead.map { ", and \($0.fileName) comes before \(ours.fileName)" } ?? ""), restart]
        }
        return steps
    }
}
