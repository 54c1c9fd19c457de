import DesktopIntegration

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
