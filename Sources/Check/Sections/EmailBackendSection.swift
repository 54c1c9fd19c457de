#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MailtoRoute

extension CheckReport.EmailBackend: CheckSection {
    public var title: String { tr("Email portal backend") }

    public var rows: [(label: String, value: String)] {
        guard let executable = executable else {
            return [("xdg-desktop-portal", tr("not installed (none of %@)", EmailBackends.executables.joined(separator: ", ")))]
        }
        guard let version = version else {
            return [("xdg-desktop-portal", tr("%@, version unknown (%@)", executable, versionProblem ?? "?"))]
        }
        var rows = [("xdg-desktop-portal", "\(version) (\(executable))")]
        let desktops = desktops.isEmpty ? tr("none") : desktops.joined(separator: ":")
        rows.append((tr("desktop"), tr("%@ (XDG_CURRENT_DESKTOP of %@)", desktops, desktopsFrom)))
        if version.readsPortalsConf {
            rows.append((tr("rule"), tr("portals.conf ([preferred]: the interface's key, else default=), then UseIn (deprecated); backends from %@", portalsDirectory)))
            rows.append(("portals.conf", config ?? tr("none")))
            for missing in missingBackends {
                rows.append((tr("names no backend"), tr("%@= names %@, which has no .portal file in %@", missing.key, missing.name,
                                                        portalsDirectory)))
            }
        } else {
            rows.append((tr("rule"), tr("%@ reads no portals.conf: backends from %@ only, those whose UseIn names a desktop of XDG_CURRENT_DESKTOP first, then by file name", version, portalsDirectory)))
        }
        let offering = offering.map { "\($0.fileName) (UseIn=\(($0.useIn ?? []).joined(separator: ";")))" }
        rows.append((tr("offering Email"), offering.isEmpty ? tr("none") : offering.joined(separator: ", ")))
        for rejected in rejected { rows.append((tr("skipped"), "\(rejected.fileName): \(rejected.reason)")) }
        if let winner = winner {
            rows.append((tr("wins"), "\(winner.fileName) (\(winner.dbusName)): \(how)"))
        } else {
            rows.append((tr("wins"), tr("none: %@", how)))
        }
        rows.append((tr("mailto-route backend"), mailtoRouteWins ? tr("is the Email backend") : tr("is not the Email backend")))
        for step in steps { rows.append((tr("to make it win"), step)) }
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
            ("missingBackends", .array(missingBackends.map { .object([("key", .string($0.key)), ("name", .string($0.name))]) })),
            ("enableTarget", .string(enableTarget)),
            ("offering", .array(offering.map(backend))),
            ("skipped", .array(rejected.map { .object([("file", .string($0.fileName)), ("reason", .string($0.reason))]) })),
            ("winner", winner.map(backend) ?? .null), ("how", .string(executable == nil ? nil : how)),
            ("mailtoRouteWins", .bool(mailtoRouteWins)), ("steps", .strings(steps)),
        ]))]
    }
}

extension Check {
    /// The Email backend as `check` finds it, alone: for `mailto-route portal`.
    public static func emailBackend() -> CheckReport.EmailBackend {
        let portal = EmailBackends.findPortal()
        let version = portal.map { executable in Result { () throws(SubprocessError) in try Subprocess([executable, "--version"]) } }
        return emailBackendFacts(portal, version, activation: activationFacts(askingTheBus: true))
    }

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
                problem = finished.timedOut ? tr("--version gave no answer within %@ ms", EmailBackends.versionMilliseconds)
                    : tr("--version failed: %@", finished.errorText)
            }
        case .failure(let failure)?:
            problem = tr("cannot be started: %@", failure.message)
        case nil:
            break
        }
        var desktop = activation.thisRun["XDG_CURRENT_DESKTOP"]
        var from = tr("this run")
        if let systemd = activation.systemd {
            desktop = systemd["XDG_CURRENT_DESKTOP"]
            from = tr("systemd --user's environment, which the portal is started with")
        }
        let environment = PortalEnvironment(
            portalDirectory: getenv("XDG_DESKTOP_PORTAL_DIR").map { String(cString: $0) }, currentDesktop: desktop,
            configHome: XDGDirectories.configHome, configDirs: XDGDirectories.configDirs,
            dataHome: XDGDirectories.dataHome, dataDirs: XDGDirectories.dataDirs)
        return EmailBackends.gather(executable: portal, versionOutput: output, versionProblem: problem,
                                    environment: environment, desktopsFrom: from)
    }
}
