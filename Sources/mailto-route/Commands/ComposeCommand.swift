import MailtoRoute

/// `mailto-route compose [URL] [--editor | --sheet] [--json]`: the message (from the URL,
/// if given) in the user's editor on a terminal, or in the compose sheet on a display with
/// no terminal; then send, save as a draft, or cancel.
enum ComposeCommand: Command {
    static let name = "compose"
    static let summary = "Write the message in your editor or the sheet, then send, save or cancel."
    static let usage = "compose [URL] [--editor | --sheet] [--json]"
    static let options: [OptionSpec] = [.flag("--json"), .flag("--editor"), .flag("--sheet")]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, output: Output) throws -> ExitStatus {
        if arguments.has("--editor"), arguments.has("--sheet") {
            throw UsageError("--editor and --sheet exclude each other", usage: fullUsage)
        }
        let terminal = hasTerminal()
        let wantsSheet = arguments.has("--sheet") || (!arguments.has("--editor") && !terminal && DesktopSheet.hasDisplay)
        if wantsSheet {
            if let url = arguments.positionals.first { _ = try MailtoURL.parse(url) }
            let words = ["compose"] + arguments.positionals + (arguments.has("--json") ? ["--json"] : [])
            if let status = DesktopSheet.run(words) { return status }
        }
        guard terminal else {
            throw UsageError("compose needs a terminal for the editor, or a display for the sheet (use open or send without either)", usage: fullUsage)
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
