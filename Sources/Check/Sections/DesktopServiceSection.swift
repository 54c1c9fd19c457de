#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MailtoRoute

extension CheckReport {
    /// The desktop service that holds the sheets (mailto-route-desktop
    /// `--gapplication-service`): whether its program is beside this one, where the
    /// session bus finds its service files, and whether it runs now.
    public struct DesktopService: Sendable {
        /// mailto-route-desktop beside this binary; `nil`: not installed (no sheet).
        public var sheetProgram: String?
        /// The service files of its name found in the bus's service directories
        /// (`$XDG_DATA_HOME` and `$XDG_DATA_DIRS`, `dbus-1/services`), in that order.
        public var serviceFiles: [String] = []
        /// Whether `register`'s autostart entry starts it at login.
        public var startsAtLogin = false
        /// Whether it has its name on the session bus now; `nil` when not asked (--offline)
        /// or the bus did not answer (`problem`).
        public var running: Bool?
        public var problem: String?
        /// On Wayland (`WAYLAND_DISPLAY` set), where Copy Address without a focused window of
        /// the service's goes through `wl-copy` (ClipboardHandover): its path, or `nil` when
        /// it is not installed. `onWayland` false: not asked.
        public var onWayland = false
        public var wlCopy: String?
    }
}

extension Check {
    /// Where the service's files are, and, unless `offline`, whether it runs.
    static func desktopServiceFacts(askingTheBus: Bool, registration: Registration) -> CheckReport.DesktopService {
        var facts = CheckReport.DesktopService()
        facts.sheetProgram = SheetService.sheetProgram
        let name = "dbus-1/services/\(ServiceProtocol.busName).service"
        facts.serviceFiles = ([XDGDirectories.dataHome] + XDGDirectories.dataDirs)
            .map { "\($0)/\(name)" }
            .filter { access($0, R_OK) == 0 }
        facts.startsAtLogin = access(registration.autostartPath, R_OK) == 0
        facts.onWayland = !(getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "").isEmpty
        facts.wlCopy = facts.onWayland ? DesktopEntries.findProgram(ClipboardHandover.program) : nil
        if askingTheBus {
            do {
                facts.running = try SheetService.isRunning(callTimeout: busSeconds)
            } catch {
                facts.problem = error.message
            }
        }
        return facts
    }
}

extension CheckReport.DesktopService: CheckSection {
    public var title: String { tr("Desktop service") }

    public var rows: [(label: String, value: String)] {
        var rows = [(tr("sheet program"), sheetProgram ?? tr("not installed beside mailto-route: no compose sheet"))]
        if serviceFiles.isEmpty {
            rows.append((tr("service files"), sheetProgram == nil ? tr("none")
                         : tr("none: run mailto-route register (or make install) for the service to start on demand")))
        } else {
            rows += serviceFiles.map { (tr("service file"), $0) }
        }
        let answer = running.map { $0 ? tr("yes, on the session bus") : tr("no (started by the first sheet)") }
        rows.append((tr("running"), answer ?? problem.map { tr("unknown (%@)", $0) } ?? tr("not asked (--offline)")))
        if onWayland {
            rows.append((tr("Copy Address"), wlCopy.map { tr("through %@ where the service has no focused window", $0) }
                         ?? tr("wl-copy is not installed: on Wayland a copy asked from a terminal or the chooser fails")))
        }
        return rows
    }

    public var jsonMembers: [(String, JSON)] {
        [("desktopService", .object([
            ("sheetProgram", .string(sheetProgram)), ("serviceFiles", .strings(serviceFiles)),
            ("running", nullable(running, JSON.bool)), ("wlCopy", .string(wlCopy)),
        ]))]
    }
}
