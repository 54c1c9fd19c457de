import Check
import MailtoRoute

/// `mailto-route unregister`: give the `mailto:` default back, and the Email portal's
/// backend too when `portal enable` set it.
enum UnregisterCommand: Command {
    static let name = "unregister"
    static let summary = trNoop("Give the mailto: links back to the handler before mailto-route.")
    static let usage = "unregister"
    static let options: [OptionSpec] = []
    static let arguments: [(name: String, help: String)] = []
    static let maxPositionals = 0

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        // First: the portals.conf line names a backend, and the desktop service goes below.
        let portal = try EmailPortalChoice(stateDirectory: context.paths.storage.stateDirectory).disable()
        if portal != .notEnabled { output.print(PortalCommand.sentence(portal)) }
        let report = try context.paths.registration.unregister()
        output.print(report.wasRegistered
            ? tr("mailto-route is no longer the mailto: handler; default restored: %@", report.restoredDefault ?? tr("none"))
            : tr("mailto-route was not registered; nothing changed"))
        return .success
    }
}
