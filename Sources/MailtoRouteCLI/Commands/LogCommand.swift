import MailtoRoute

/// `mailto-route log [--stats] [--count N] [--json]`: what recent runs did, or how often
/// each path and result happened.
enum LogCommand: Command {
    static let name = "log"
    static let summary = "Show what recent runs did, or count them (--stats)."
    static let usage = "log [--stats] [--count N] [--json]"
    static let options: [OptionSpec] = [
        .flag("--stats", "count the runs per path, per result and per both"),
        .single("--count", "N", "show the last N runs (20)"),
        .flag("--json", "print the runs or the counts as JSON"),
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
            output.print("\(stats.total) run\(stats.total == 1 ? "" : "s") logged" + (stats.unreadable > 0 ? ", \(stats.unreadable) unreadable line(s)" : ""))
            guard stats.total > 0 else { return .success }
            output.print("By path:   " + stats.byPath.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
            output.print("By result: " + stats.byResult.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
            var table = Table(header: ["PATH", "RESULT", "COUNT"])
            for row in stats.byPathAndResult { table.add([row.path, row.result, String(row.count)]) }
            output.print(table.lines.joined(separator: "\n"))
            return .success
        }
        var count = 20
        if let text = arguments.value("--count") {
            guard let value = Int(text), value > 0 else {
                throw UsageError("--count needs a positive number, not '\(text)'", usage: fullUsage)
            }
            count = value
        }
        let outcomes = try log.recent(count)
        if json {
            output.print(JSON.array(outcomes.map(\.json)).serialized)
        } else if outcomes.isEmpty {
            output.print("Nothing logged yet (\(log.path)).")
        } else {
            var table = Table(header: ["TIME (UTC)", "SOURCE", "PATH", "RESULT", "HANDLER / SERVER", "ERROR"])
            for outcome in outcomes {
                table.add([
                    outcome.time.iso8601, outcome.source, outcome.path, outcome.result,
                    outcome.handler ?? outcome.server ?? "", outcome.errorKind?.rawValue ?? "",
                ])
            }
            output.print(table.lines.joined(separator: "\n"))
        }
        return .success
    }
}
