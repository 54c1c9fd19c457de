import DesktopIntegration

/// `mailto-route register` and `unregister`, as the command line sees them.
public enum Registering {
    public struct Outcome: Sendable {
        /// One line each, in the order they happened.
        public var lines: [String]
        public var warnings: [String]
    }

    /// Installs mailto-route as the `mailto:` handler (idempotent).
    public static func register(force: Bool = false) throws -> Outcome {
        let report = try Registration.register(force: force)
        var lines = [report.wasRegistered
            ? "mailto-route is already the default mailto: handler (\(report.desktopFile))"
            : "mailto-route is now the default mailto: handler (\(report.desktopFile))"]
        lines.append("previous default: \(report.previousDefault ?? "none") (unregister restores it)")
        for path in report.takenOver {
            lines.append("\(path) now names mailto-route first (unregister gives it back)")
        }
        var warnings: [String] = []
        for found in report.overrides {
            warnings.append("""
                \(found.path) names \(found.handlers.joined(separator: ";")) for mailto: links and wins \
                over mimeapps.list on this desktop: remove that line, or run 'mailto-route register --force', \
                for mailto-route to take effect
                """)
        }
        if report.overrides.isEmpty, let effective = report.effectiveDefault, effective != Registration.desktopID {
            warnings.append("GIO still names \(effective) as the default mailto: handler")
        }
        return Outcome(lines: lines, warnings: warnings)
    }

    /// Gives the `mailto:` default back to the program that had it before `register`.
    public static func unregister() throws -> Outcome {
        let report = try Registration.unregister()
        guard report.wasRegistered else {
            return Outcome(lines: ["mailto-route was not registered; nothing changed"], warnings: [])
        }
        return Outcome(
            lines: ["mailto-route is no longer the mailto: handler; default restored: \(report.restoredDefault ?? "none")"],
            warnings: []
        )
    }
}
