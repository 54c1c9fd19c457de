import MailtoRoute

/// `mailto-route unregister`: give the `mailto:` default back.
enum UnregisterCommand: Command {
    static let name = "unregister"
    static let summary = trNoop("Give the mailto: links back to the handler before mailto-route.")
    static let usage = "unregister"
    static let options: [OptionSpec] = []
    static let arguments: [(name: String, help: String)] = []
    static let maxPositionals = 0

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let report = try context.paths.registration.unregister()
        output.print(report.wasRegistered
            ? tr("mailto-route is no longer the mailto: handler; default restored: %@", report.restoredDefault ?? tr("none"))
            : tr("mailto-route was not registered; nothing changed"))
        return .success
    }
}
