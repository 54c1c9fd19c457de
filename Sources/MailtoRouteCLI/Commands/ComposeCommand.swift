import MailtoRoute

/// `mailto-route compose [URL] [--editor | --sheet] [--json]`: the message (from the URL,
/// if given) in the user's editor on a terminal, or in the compose sheet on a display with
/// no terminal; then send, save as a draft, or cancel.
enum ComposeCommand: Command {
    static let name = "compose"
    static let summary = "Write the message in your editor or the sheet, then send, save or cancel."
    static let usage = "compose [URL] [--editor | --sheet] [--json]"
    static let options: [OptionSpec] = [
        .flag("--json", "print what came of it as one JSON object"),
        .flag("--editor", "write it in $VISUAL or $EDITOR on this terminal"),
        .flag("--sheet", "write it in the compose sheet on the display"),
    ]
    static let arguments: [(name: String, help: String)] = [("URL", "a mailto: URL that fills the message first")]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        if arguments.has("--editor"), arguments.has("--sheet") {
            throw UsageError("--editor and --sheet exclude each other", usage: fullUsage)
        }
        let terminal = hasTerminal()
        let wantsSheet = arguments.has("--sheet") || (!arguments.has("--editor") && !terminal && Session.Environment.current().hasDisplay)
        if wantsSheet {
            if let url = arguments.positionals.first { _ = try MailtoURL.parse(url) }
            let request = ServiceProtocol.Request(url: arguments.positionals.first, source: .compose)
            if let status = DesktopSheet.run(request, session: context.session(), json: arguments.has("--json"), output: output) {
                return status
            }
        }
        guard terminal else {
            throw UsageError("compose needs a terminal for the editor, or a display for the sheet (use open or send without either)", usage: fullUsage)
        }
        let start = try arguments.positionals.first.map { (url) throws(MailtoURLError) in try MailtoURL.parse(url) } ?? EmailData()
        let report = try context.session().compose(start) {
            context.present($0, json: arguments.has("--json"), source: .compose)
        }
        return ExitStatus(for: report)
    }
}
