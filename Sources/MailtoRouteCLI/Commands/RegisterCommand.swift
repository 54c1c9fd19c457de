import MailtoRoute

/// `mailto-route register`: become the desktop's `mailto:` handler.
enum RegisterCommand: Command {
    static let name = "register"
    static let summary = trNoop("Make mailto-route the desktop's mailto: handler.")
    static let usage = "register [--force]"
    static let options: [OptionSpec] = [
        .flag("--force", trNoop("also win over a desktop-specific list that names another program")),
    ]
    static let arguments: [(name: String, help: String)] = []
    static let maxPositionals = 0

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let report = try context.paths.registration.register(force: arguments.has("--force"))
        output.print(report.wasRegistered
            ? tr("mailto-route is already the default mailto: handler (%@)", report.desktopFile)
            : tr("mailto-route is now the default mailto: handler (%@)", report.desktopFile))
        output.print(tr("previous default: %@ (unregister restores it)", report.previousDefault ?? tr("none")))
        if !report.serviceFiles.isEmpty {
            output.print(tr("the desktop service: %@", report.serviceFiles.joined(separator: ", ")))
        }
        for path in report.takenOver {
            output.print(tr("%@ now names mailto-route first (unregister gives it back)", path))
        }
        for found in report.overrides {
            output.error(tr("warning: %@ names %@ for mailto: links and wins over mimeapps.list on this desktop: remove that line, "
                            + "or run 'mailto-route register --force', for mailto-route to take effect",
                            found.path, found.handlers.joined(separator: ";")))
        }
        if report.overrides.isEmpty, let effective = report.effectiveDefault, effective != Registration.desktopID {
            output.error(tr("warning: GIO still names %@ as the default mailto: handler", effective))
        }
        return .success
    }
}
