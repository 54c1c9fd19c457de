import MailtoRoute

/// `mailto-route drafts list | drop ID [--json]`: the messages saved instead of sent.
enum DraftsCommand: Command {
    static let name = "drafts"
    static let usage = "drafts list | drop ID [--json]"
    static let options: [OptionSpec] = [.flag("--json")]
    static let maxPositionals = 2

    static func run(_ arguments: Arguments, output: Output) throws -> ExitStatus {
        let json = arguments.has("--json")
        let drafts = try StorageLocations.current().drafts
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
                var table = Table(header: ["ID", "SAVED (UTC)", "TO", "SUBJECT"])
                for draft in all {
                    table.add([
                        draft.id, draft.saved.shortText, draft.recipients.joined(separator: ", ").cut(to: 40),
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
        case ("drop", nil):
            throw UsageError("drafts drop needs a draft ID (see 'mailto-route drafts list')", usage: fullUsage)
        case ("list", let extra?):
            throw UsageError("unexpected argument '\(extra)'", usage: fullUsage)
        default:
            throw UsageError("unknown drafts action '\(action)'", usage: fullUsage)
        }
    }
}
