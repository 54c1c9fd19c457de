import Check
import MailtoRoute

/// `mailto-route portal [status | enable | disable]`: which backend the desktop's Email
/// portal uses, and on xdg-desktop-portal 1.17 and later making it mailto-route's with one
/// line of the user's portals.conf, and taking that line back (`EmailPortalChoice`).
enum PortalCommand: Command {
    static let name = "portal"
    static let summary = trNoop("Show, set or take back mailto-route as the Email portal's backend.")
    static let usage = "portal [status | enable | disable]"
    static let options: [OptionSpec] = []
    static let arguments: [(name: String, help: String)] = [
        ("status", trNoop("which backend has the Email portal (the default)")),
        ("enable", trNoop("give it to mailto-route in your portals.conf (1.17 and later)")),
        ("disable", trNoop("take that back: the file as it was before, byte for byte")),
    ]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let choice = EmailPortalChoice(stateDirectory: context.paths.storage.stateDirectory)
        let restart = tr("Restart the portal for it to take effect: systemctl --user restart xdg-desktop-portal (or log in again).")
        switch arguments.positionals.first ?? "status" {
        case "status":
            let facts = Check.emailBackend()
            if let version = facts.version {
                let winner = facts.winner.map { "\($0.fileName) (\(facts.how))" } ?? tr("none: %@", facts.how)
                output.print(tr("xdg-desktop-portal %@ gives the Email portal to %@", version.description, winner))
            } else {
                output.print(facts.executable == nil ? tr("xdg-desktop-portal is not installed")
                    : tr("cannot tell the version of %@ (%@)", facts.executable ?? "", facts.versionProblem ?? "?"))
            }
            output.print(choice.enabledFile.map { tr("mailto-route portal enable set it in %@; portal disable takes it back", $0) }
                ?? tr("mailto-route portal enable has set nothing"))
            return .success
        case "enable":
            switch try choice.enable(Check.emailBackend()) {
            case .already(let file):
                output.print(tr("%@ gives the Email portal to mailto-route already; nothing changed", file))
            case .set(let file, let copiedFrom?, _):
                output.print(tr("Made %@, a copy of %@ with org.freedesktop.impl.portal.Email=mailtoroute; "
                    + "mailto-route portal disable removes it.", file, copiedFrom))
                output.print(restart)
            case .set(let file, nil, true):
                output.print(tr("Made %@ with org.freedesktop.impl.portal.Email=mailtoroute; mailto-route portal disable removes it.", file))
                output.print(restart)
            case .set(let file, nil, false):
                output.print(tr("Set org.freedesktop.impl.portal.Email=mailtoroute in %@; mailto-route portal disable puts back "
                    + "what was there.", file))
                output.print(restart)
            }
            return .success
        case "disable":
            let disabled = try choice.disable()
            output.print(sentence(disabled))
            if case .notEnabled = disabled { return .success }
            if case .nothingLeft = disabled { return .success }
            output.print(restart)
            return .success
        case let other:
            throw UsageError(tr("unknown portal action '%@'", other), usage: fullUsage)
        }
    }

    /// What `disable` did, in one sentence (`unregister` says it too).
    static func sentence(_ disabled: EmailPortalChoice.Disabled) -> String {
        switch disabled {
        case .restored(let file): tr("%@ is again as it was before mailto-route portal enable.", file)
        case .removed(let file): tr("Removed %@, which mailto-route portal enable had made.", file)
        case .lineRestored(let file):
            tr("%@ was changed since mailto-route portal enable: only its org.freedesktop.impl.portal.Email line was put back.", file)
        case .nothingLeft(let file): tr("%@ no longer names mailto-route for the Email portal; nothing changed.", file)
        case .notEnabled: tr("mailto-route portal enable has set nothing; nothing changed.")
        }
    }
}
