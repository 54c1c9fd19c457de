import MailtoRoute

/// `mailto-route open URL` (also a bare `mailto:` URL, as `Exec=… open %u` and links run
/// it): parse, hand off to the mail program, say to which and what did not go with it.
enum OpenCommand: Command {
    static let name = "open"
    static let usage = "[open] URL"
    static let options: [OptionSpec] = []
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, output: Output) throws -> ExitStatus {
        guard let url = arguments.positionals.first else {
            throw UsageError("missing URL", usage: fullUsage)
        }
        let email = try MailtoURL.parse(url)
        let result = try handOff(email)
        output.print("handed off to \(result.handlerName) (\(result.handlerID))")
        for warning in result.warnings {
            output.error("warning: \(warning)")
        }
        return .success
    }
}
