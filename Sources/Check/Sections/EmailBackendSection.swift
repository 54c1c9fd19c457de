#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MailtoRoute

extension CheckReport.EmailBackend: CheckSection {
    public var title: String { "Email portal backend" }

    public var rows: [(label: String, value: String)] {
        guard let executable = executable else {
            return [("xdg-desktop-portal", "not installed (none of \(EmailBackends.executables.joined(separator: ", ")))")]
        }
        guard let version = version else {
            return [("xdg-desktop-portal", "\(executable), version unknown (\(versionProblem ?? "?"))")]
        }
        var rows = [("xdg-desktop-portal", "\(version) (\(executable))")]
        let desktops = desktops.isEmpty ? "none" : desktops.joined(separator: ":")
        rows.append(("desktop", "\(desktops) (XDG_CURRENT_DESKTOP of \(desktopsFrom))"))
        if version.readsPortalsConf {
            rows.append(("rule", "portals.conf ([preferred]: the interface's key, else default=), then UseIn (deprecated); "
                         + "backends from \(portalsDirectory)"))
            rows.append(("portals.conf", config ?? "none"))
        } else {
            rows.append(("rule", "\(version) reads no portals.conf: backends from \(portalsDirectory) only, "
                         + "those whose UseIn names a desktop of XDG_CURRENT_DESKTOP first, then by file name"))
        }
        let offering = offering.map { "\($0.fileName) (UseIn=\(($0.useIn ?? []).joined(separator: ";")))" }
        rows.append(("offering Email", offering.isEmpty ? "none" : offering.joined(separator: ", ")))
        for rejected in rejected { rows.append(("skipped", "\(rejected.fileName): \(rejected.reason)")) }
        if let winner = winner {
            rows.append(("wins", "\(winner.fileName) (\(winner.dbusName)): \(how)"))
        } else {
            rows.append(("wins", "none: \(how)"))
        }
        rows.append(("mailto-route backend", mailtoRouteWins ? "is the Email backend" : "is not the Email backend"))
        for step in steps { rows.append(("to make it win", step)) }
        return rows
    }

    public var jsonMembers: [(String, JSON)] {
        func backend(_ value: PortalBackend) -> JSON {
            .object([("file", .string(value.fileName)), ("name", .string(value.name)), ("dbusName", .string(value.dbusName)),
                     ("useIn", value.useIn.map(JSON.strings) ?? .null)])
        }
        return [("emailBackend", .object([
            ("installed", .bool(executable != nil)), ("executable", .string(executable)),
            ("version", .string(version?.description)), ("versionProblem", .string(versionProblem)),
            ("directory", .string(executable == nil ? nil : portalsDirectory)),
            ("desktops", .strings(desktops)), ("desktopsFrom", .string(desktopsFrom)),
            ("config", .string(config)),
            ("offering", .array(offering.map(backend))),
            ("skipped", .array(rejected.map { .object([("file", .string($0.fileName)), ("reason", .string($0.reason))]) })),
            ("winner", winner.map(backend) ?? .null), ("how", .string(executable == nil ? nil : how)),
            ("mailtoRouteWins", .bool(mailtoRouteWins)), ("steps", .strings(steps)),
        ]))]
    }
}

extension Check {
    /// The Email backend by the installed portal's rule. The portal is started by D-Bus
    /// activation, so with systemd --user the desktop it sees is the user manager's.
    static func emailBackendFacts(
        _ portal: String?, _ version: Result<Subprocess, SubprocessError>?, activation: CheckReport.Activation
    ) -> CheckReport.EmailBackend {
        var output: String?
        var problem: String?
        switch version {
        case .success(let running)?:
            let finished = running.finish(within: EmailBackends.versionMilliseconds)
            if finished.status == 0 {
                output = String(decoding: finished.output, as: UTF8.self)
            } else {
                problem = finished.timedOut ? "--version gave no answer within \(EmailBackends.versionMilliseconds) ms"
                    : "--version failed: \(finished.errorText)"
            }
        case .failure(let failure)?:
            problem = "cannot be started: \(failure.message)"
        case nil:
            break
        }
        var desktop = activation.thisRun["XDG_CURRENT_DESKTOP"]
        var from = "this run"
        if let systemd = activation.systemd {
            desktop = systemd["XDG_CURRENT_DESKTOP"]
            from = "systemd --user's environment, which the portal is started with"
        }
        let environment = PortalEnvironment(
            portalDirectory: getenv("XDG_DESKTOP_PORTAL_DIR").map { String(cString: $0) }, currentDesktop: desktop,
            configHome: XDGDirectories.configHome, configDirs: XDGDirectories.configDirs,
            dataHome: XDGDirectories.dataHome, dataDirs: XDGDirectories.dataDirs)
        return EmailBackends.gather(executable: portal, versionOutput: output, versionProblem: problem,
                                    environment: environment, desktopsFrom: from)
    }
}
