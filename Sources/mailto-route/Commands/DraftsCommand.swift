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

    static func run(_ arguments: Arguments, output: Output) throws -> ExitStatus {
        let json = arguments.has("--json")
        let locations = try StorageLocations.current()
        let drafts = locations.drafts
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
            return send(try DraftSending.send(id, locations: locations), json: json, output: output)
        case ("drop", nil), ("send", nil):
            throw UsageError("drafts \(action) needs a draft ID (see 'mailto-route drafts list')", usage: fullUsage)
        case ("list", let extra?):
            throw UsageError("unexpected argument '\(extra)'", usage: fullUsage)
        default:
            throw UsageError("unknown drafts action '\(action)'", usage: fullUsage)
        }
    }

    /// Prints what came of `drafts send`; the status as `send` has it (75 when queued).
    private static func send(_ result: DraftSendResult, json: Bool, output: Output) -> ExitStatus {
        if json {
            output.print(result.json.serialized)
        } else {
            var lines: [String] = []
            switch result.result {
            case "sent":
                lines.append("\(result.draft): sent via \(result.server ?? "?")" + (result.reply.map { ": \($0)" } ?? ""))
                if result.draftRemoved { lines.append("the draft was removed") }
            case "queued":
                lines.append("\(result.draft): queued in the outbox as \(result.outboxId ?? "?"), will be retried"
                    + (result.error.map { ": \($0.message)" } ?? ""))
                if result.draftRemoved { lines.append("the draft was removed (the outbox has it now)") }
            default:
                lines.append("mailto-route: \(result.draft): not sent" + (result.error.map { ": \($0.message)" } ?? "")
                    + "; it stays a draft")
            }
            if let messageId = result.messageId { lines.append("Message-ID: \(messageId)") }
            if !result.accepted.isEmpty { lines.append("accepted: \(result.accepted.joined(separator: ", "))") }
            for refusal in result.refused { lines.append("refused: \(refusal.address): \(refusal.reply)") }
            for warning in result.warnings { lines.append("warning: \(warning)") }
            for line in lines { result.result == "failed" ? output.error(line.visible) : output.print(line.visible) }
        }
        switch result.result {
        case "sent": return .success
        case "queued": return .queued
        default: return ExitStatus(for: result.error?.kind ?? .permanent)
        }
    }
}
