import MailtoRoute

/// `mailto-route compose [URL] [--json]`: the message (from the URL, if given) in the
/// user's editor, then send, save as a draft, or cancel. Needs a terminal.
enum ComposeCommand: Command {
    static let name = "compose"
    static let summary = "Write the message in your editor, then send, save or cancel."
    static let usage = "compose [URL] [--json]"
    static let options: [OptionSpec] = [.flag("--json", "print what came of it as one JSON object")]
    static let arguments: [(name: String, help: String)] = [("URL", "a mailto: URL that fills the message first")]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, output: Output) throws -> ExitStatus {
        guard hasTerminal() else {
            throw UsageError("compose needs a terminal for the editor (use open or send without one)", usage: fullUsage)
        }
        let start = try arguments.positionals.first.map { (url) throws(MailtoURLError) in try MailtoURL.parse(url) } ?? EmailData()
        let report = try Session.current().compose(start) {
            output.present($0, json: arguments.has("--json"), source: .compose)
        }
        return ExitStatus(for: report)
    }
}
