import MailtoRoute

/// `mailto-route drafts list | send ID | drop ID [--json]`: the messages saved instead of
/// sent.
enum DraftsCommand: Command {
    static let name = "drafts"
    static let summary = "List, send or drop saved drafts."
    static let usage = "drafts list | send ID | drop ID [--json]"
    static let options: [OptionSpec] = [.flag("--json", "print the result as JSON")]
    static let arguments: [(name: String, help: String)] = [
        ("list", "the drafts: ID, when saved, recipients, subject (the default)"),
        ("send ID", "send a draft from the configured account; removed once sent"),
        ("drop ID", "delete a draft without sending it"),
    ]
    static let maxPositionals = 2

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let json = arguments.has("--json")
        let session = context.session()
        let drafts = session.storage.drafts
        let action = arguments.positionals.first ?? "list"
        let id = arguments.positionals.dropFirst().first
        switch (action, id) {
        case ("list", nil):
            let all = try drafts.list()
            if json {
                output.print(JSON.array(all.map(\.json)).serialized)
            } else if all.isEmpty {
                output.print("No drafts.")
            } else {
                var table = Table(header: ["ID", "SAVED", "TO", "SUBJECT"])
                for draft in all {
                    table.add([
                        draft.id, draft.saved.localShortText, draft.recipients.joined(separator: ", ").cut(to: 40),
                        (draft.subject ?? "").cut(to: 50),
                    ])
                }
                output.print(table.lines.joined(separator: "\n"))
                output.print("In \(drafts.directory)")
            }
            return .success
        case ("drop", let id?):
            try drafts.drop(id)
            output.print(json ? JSON.object([("dropped", .string(id))]).serialized : "\(id): draft deleted.")
            return .success
        case ("send", let id?):
            let (report, removed) = try session.sendDraft(id)
            return send(report, id: id, removed: removed, json: json, output: output)
        case ("drop", nil), ("send", nil):
            throw UsageError("drafts \(action) needs a draft ID (see 'mailto-route drafts list')", usage: fullUsage)
        case ("list", let extra?):
            throw UsageError("unexpected argument '\(extra)'", usage: fullUsage)
        default:
            throw UsageError("unknown drafts action '\(action)'", usage: fullUsage)
        }
    }

    /// Prints what came of `drafts send`, as `send` does (the same report, lines and exit
    /// status), naming the draft and saying whether it is gone.
    private static func send(_ report: RouteReport, id: String, removed: Bool, json: Bool, output: Output) -> ExitStatus {
        var shown = report
        if json {
            if case .object(let members) = report.json {
                output.print(JSON.object(members + [("draftRemoved", .bool(removed))]).serialized)
            }
            return ExitStatus(for: report)
        }
        // The draft's own path is not news: it is the one the user named.
        shown.draft = nil
        var lines = shown.readableLines
        lines[0] = "\(id): " + lines[0]
        switch report.result {
        case .sent: if removed { lines.insert("the draft was removed", at: 1) }
        case .queued: if removed { lines.insert("the draft was removed (the outbox has it now)", at: 1) }
        default: lines[0] += "; it stays a draft"
        }
        output.printReportLines(lines, failed: report.result == .failed)
        return ExitStatus(for: report)
    }
}
