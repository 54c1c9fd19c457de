import MailtoRoute

/// `mailto-route route [show] | reset [--json]`: the way the chooser's **Always** remembered
/// for clicked links (`always=` in `[route]` of the config file), and forgetting it, so that
/// the next click asks again.
enum RouteCommand: Command {
    static let name = "route"
    static let summary = "Show or forget the way a clicked link always goes (the chooser's Always)."
    static let usage = "route [show | reset] [--json]"
    static let options: [OptionSpec] = [.flag("--json", "print the result as JSON")]
    static let arguments: [(name: String, help: String)] = [
        ("show", "the way links always go, or that a click asks (the default)"),
        ("reset", "forget it: the next click asks again"),
    ]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let json = arguments.has("--json")
        let session = context.session()
        switch arguments.positionals.first ?? "show" {
        case "show":
            let always = session.routeSettings.always
            let applications = session.configuration.portalWays.sorted { $0.key < $1.key }
            if json {
                output.print(JSON.object([
                    ("always", .string(always)), ("file", .string(session.paths.configFile)),
                    ("applications", .object(applications.map { ($0.key, .string($0.value)) })),
                ]).serialized)
                return .success
            }
            if let always {
                output.print("Clicked links always go to \(always) (always= in [route] of \(session.paths.configFile)); mailto-route route reset asks again.")
            } else {
                output.print("Nothing is remembered for links: a click asks how to send when there is more than one way.")
            }
            for (application, way) in applications {
                output.print("\(application) (through the Email portal) always goes to \(way).")
            }
            return .success
        case "reset":
            let forgotten = try session.forgetWay()
            if let system = session.wayFromSystemFile {
                // The administrator's value is read below the user's file: it stays.
                output.error("mailto-route: always= in [route] of \(system) is the administrator's; it still applies")
            }
            if json {
                output.print(JSON.object([("forgotten", .strings(forgotten)), ("file", .string(session.paths.configFile))]).serialized)
            } else if forgotten.isEmpty {
                output.print("Nothing to forget: no way is remembered in \(session.paths.configFile).")
            } else {
                output.print("Forgot \(forgotten.joined(separator: "; ")): the next click asks how to send.")
            }
            return .success
        case let other:
            throw UsageError("unknown route action '\(other)'", usage: fullUsage)
        }
    }
}
