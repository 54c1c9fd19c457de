#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MailtoRoute

extension CheckReport {
    /// What this run sees of the variables a handoff and the desktop service depend on,
    /// and what a D-Bus-activated mailto-route would get instead.
    public struct Activation: Sendable {
        /// The program search path, the desktop (the portal's choice, GIO's OnlyShowIn), the
        /// display, the agents a mail program asks for keys, and the bus itself.
        public static let variables = ["PATH", "XDG_CURRENT_DESKTOP", "DISPLAY", "WAYLAND_DISPLAY", "SSH_AUTH_SOCK",
                                       "GPG_AGENT_INFO", "GNUPGHOME", "DBUS_SESSION_BUS_ADDRESS"]

        public enum Bus: Sendable, Equatable {
            /// `--offline`: no bus call is made.
            case notAsked
            /// The bus could not be asked (no session bus, no answer), and why.
            case unknown(String)
            case known(ActivationEnvironment)
        }

        /// This run's values of `variables` (unset ones are absent).
        public var thisRun: [String: String] = [:]
        public var bus: Bus = .notAsked
        /// Set in this run, unset in systemd --user's environment.
        public var missing: [String] = []
        /// Set in both, to different values.
        public var differing: [String] = []

        /// systemd --user's environment, when the bus said it runs.
        public var systemd: [String: String]? {
            if case .known(.systemd(let values)) = bus { return values }
            return nil
        }

        /// Fills in `missing` and `differing` from `thisRun` and the bus's environment.
        mutating func compare() {
            guard let systemd else { return }
            missing = Self.variables.filter { thisRun[$0] != nil && systemd[$0] == nil }
            differing = Self.variables.filter { name in
                guard let here = thisRun[name], let there = systemd[name] else { return false }
                return here != there
            }
        }

        /// The command that gives systemd --user (and dbus-daemon) this run's values.
        public var fix: String? {
            let names = missing + differing
            return names.isEmpty ? nil : "dbus-update-activation-environment --systemd " + names.joined(separator: " ")
        }
    }
}

extension CheckReport.Activation: CheckSection {
    public var title: String { "Activation environment" }

    public var rows: [(label: String, value: String)] {
        var rows: [(String, String)] = []
        for name in Self.variables { rows.append((name, thisRun[name] ?? "unset")) }
        switch bus {
        case .notAsked:
            rows.append(("D-Bus activation", "not asked (--offline)"))
        case .unknown(let reason):
            rows.append(("D-Bus activation", "unknown (\(reason))"))
        case .known(.busDaemon):
            rows.append(("D-Bus activation", "dbus-daemon's own environment (as it was started, plus what "
                         + "dbus-update-activation-environment sent it; it cannot be read back)"))
        case .known(.systemd):
            rows.append(("D-Bus activation", "systemd --user's environment (org.freedesktop.systemd1.Manager Environment)"))
            if missing.isEmpty, differing.isEmpty {
                rows.append(("there", "the same as this run"))
            }
            if !missing.isEmpty { rows.append(("unset there", missing.joined(separator: ", "))) }
            if !differing.isEmpty { rows.append(("different there", differing.joined(separator: ", "))) }
        }
        return rows
    }

    public var jsonMembers: [(String, JSON)] {
        var source: [(String, JSON)]
        switch bus {
        case .notAsked: source = [("source", .string("not asked"))]
        case .unknown(let reason): source = [("source", .string("unknown")), ("reason", .string(reason))]
        case .known(.busDaemon): source = [("source", .string("dbus-daemon"))]
        case .known(.systemd(let values)):
            source = [("source", .string("systemd")),
                   ("environment", .object(Self.variables.map { ($0, .string(values[$0])) }))]
        }
        return [("activation", .object([
            ("thisRun", .object(Self.variables.map { ($0, .string(thisRun[$0])) })),
            ("bus", .object(source)),
            ("missing", .strings(missing)), ("differing", .strings(differing)),
            ("fix", .string(fix)),
        ]))]
    }
}

extension Check {
    /// This run's values of the variables that matter for a handoff and the service, and,
    /// unless `--offline` (no bus call), where a D-Bus-activated process gets its own.
    static func activationFacts(askingTheBus: Bool) -> CheckReport.Activation {
        var facts = CheckReport.Activation()
        for name in CheckReport.Activation.variables {
            if let value = getenv(name).map({ String(cString: $0) }) { facts.thisRun[name] = value }
        }
        if askingTheBus {
            do {
                facts.bus = .known(try ActivationEnvironment.read(callTimeout: busSeconds))
            } catch {
                facts.bus = .unknown(error.message)
            }
        }
        facts.compare()
        return facts
    }
}
