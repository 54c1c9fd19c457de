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
        var report: RouteReport
        switch try Compose.edit(start) {
        case .editorFailed(let why, let email):
            // What the user wrote is kept, whatever the editor did (rule 3).
            report = Router.route(RouteRequest(email: email, source: .compose, forcedPath: .draft))
            report.warnings.insert("\(why): the message is kept as a draft", at: 0)
        case .edited(let email):
            switch Compose.askWhatNext(for: email) {
            case .send:
                report = Router.route(RouteRequest(email: email, source: .compose))
            case .save, nil:
                report = Router.route(RouteRequest(email: email, source: .compose, forcedPath: .draft))
            case .cancel:
                report = RouteReport(path: .compose, result: .cancelled)
                Router.log(report, source: .compose)
            }
        }
        let status = output.present(report, json: arguments.has("--json"), source: .compose)
        Router.flushDueAfter(report, source: .compose)
        return status
    }
}
