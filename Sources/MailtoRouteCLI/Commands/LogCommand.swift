import MailtoRoute

/// `mailto-route log [--stats] [--count N] [--json]`: what recent runs did, or how often
/// each path and result happened.
enum LogCommand: Command {
    static let name = "log"
    static let summary = trNoop("Show what recent runs did, or count them (--stats).")
    static let usage = "log [--stats] [--count N] [--json]"
    static let options: [OptionSpec] = [
        .flag("--stats", trNoop("count the runs per path, per result and per both")),
        .single("--count", "N", trNoop("show the last N runs (20)")),
        .flag("--json", trNoop("print the runs or the counts as JSON")),
    ]
    static let arguments: [(name: String, help: String)] = []
    static let maxPositionals = 0

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let json = arguments.has("--json")
        let log = context.paths.storage.outcomeLog
        if arguments.has("--stats") {
            let stats = try log.stats()
            if json {
                output.print(stats.json.serialized)
                return .success
            }
            output.print(stats.unreadable > 0
                ? trn("%@ run logged", "%@ runs logged", stats.total, stats.total) + ", "
                    + trn("%@ unreadable line", "%@ unreadable lines", stats.unreadable, stats.unreadable)
                : trn("%@ run logged", "%@ runs logged", stats.total, stats.total))
            guard stats.total > 0 else { return .success }
            // The counts start in one column, however long each language's labels are.
            let (byPath, byResult) = (tr("By path:"), tr("By result:"))
            let column = max(byPath.count, byResult.count) + 1
            let label = { (text: String) in text + String(repeating: " ", count: column - text.count) }
            output.print(label(byPath) + stats.byPath.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
            output.print(label(byResult) + stats.byResult.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
            var table = Table(header: [tr("PATH"), tr("RESULT"), tr("COUNT")])
            for row in stats.byPathAndResult { table.add([row.path, row.result, String(row.count)]) }
            output.print(table.lines.joined(separator: "\n"))
            return .success
        }
        var count = 20
        if let text = arguments.value("--count") {
            guard let value = Int(text), value > 0 else {
                throw UsageError(tr("--count needs a positive number, not '%@'", text), usage: fullUsage)
            }
            count = value
        }
        let outcomes = try log.recent(count)
        if json {
            output.print(JSON.array(outcomes.map(\.json)).serialized)
        } else if outcomes.isEmpty {
            output.print(tr("Nothing logged yet (%@).", log.path))
        } else {
            var table = Table(header: [tr("TIME (UTC)"), tr("SOURCE"), tr("ARRIVED BY"), tr("PATH"), tr("RESULT"),
                                       tr("HANDLER / SERVER"), tr("ERROR")])
            for outcome in outcomes {
                table.add([
                    outcome.time.iso8601, outcome.source, Self.arrivalText(outcome), outcome.path, Self.resultText(outcome),
                    outcome.handler ?? outcome.server ?? "", outcome.errorKind?.rawValue ?? "",
                ])
            }
            output.print(table.lines.joined(separator: "\n"))
        }
        return .success
    }

    /// How the request arrived, with the program that asked where it is known:
    /// `gio launch (Firefox)`.
    static func arrivalText(_ outcome: Outcome) -> String {
        guard let arrival = outcome.arrival else { return "" }
        return outcome.requestedBy.map { "\(arrival) (\($0))" } ?? arrival
    }

    /// The result as the log keeps it, with a held message's hold said as such: a sheet's
    /// Send is `queued (held for Undo)`, then `sent` at the end of its hold.
    static func resultText(_ outcome: Outcome) -> String {
        switch outcome.hold {
        case .undo?: tr("%@ (held for Undo)", outcome.result)
        case .later?: tr("%@ (held to send later)", outcome.result)
        case nil: outcome.result
        }
    }
}
