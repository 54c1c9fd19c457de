import MailtoRoute

/// `mailto-route register`: become the desktop's `mailto:` handler.
enum RegisterCommand: Command {
    static let name = "register"
    static let summary = "Make mailto-route the desktop's mailto: handler."
    static let usage = "register [--force]"
    static let options: [OptionSpec] = [
        .flag("--force", "also win over a desktop-specific list that names another program"),
    ]
    static let arguments: [(name: String, help: String)] = []
    static let maxPositionals = 0

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let report = try Registration.register(force: arguments.has("--force"))
        output.print(report.wasRegistered
            ? "mailto-route is already the default mailto: handler (\(report.desktopFile))"
            : "mailto-route is now the default mailto: handler (\(report.desktopFile))")
        output.print("previous default: \(report.previousDefault ?? "none") (unregister restores it)")
        if !report.serviceFiles.isEmpty {
            output.print("the desktop service: \(report.serviceFiles.joined(separator: ", "))")
        }
        for path in report.takenOver {
            output.print("\(path) now names mailto-route first (unregister gives it back)")
        }
        for found in report.overrides {
            output.error("""
                warning: \(found.path) names \(found.handlers.joined(separator: ";")) for mailto: links and wins \
                over mimeapps.list on this desktop: remove that line, or run 'mailto-route register --force', \
                for mailto-route to take effect
                """)
        }
        if report.overrides.isEmpty, let effective = report.effectiveDefault, effective != Registration.desktopID {
            output.error("warning: GIO still names \(effective) as the default mailto: handler")
        }
        return .success
    }
}
