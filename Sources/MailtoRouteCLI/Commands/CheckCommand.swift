import Check
import MailtoRoute

/// `mailto-route check [--json] [--offline]` (also `--check`): what a click on a `mailto:`
/// link would do right now, what is wrong, and how to fix it. Exit status 0 when a click
/// reaches a working path, 1 when it would not (only a draft), 78 on a configuration error.
enum CheckCommand: Command {
    static let name = "check"
    static let summary = trNoop("Tell what a click would do right now, and what is wrong.")
    static let usage = "check | --check [--json] [--offline]"
    static let options: [OptionSpec] = [
        .flag("--json", trNoop("print the report as one JSON object")),
        .flag("--offline", trNoop("skip the live test of the SMTP server")),
    ]
    static let arguments: [(name: String, help: String)] = []
    static let maxPositionals = 0

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let report = Check.run(offline: arguments.has("--offline"), session: context.session)
        if arguments.has("--json") {
            output.print(report.json.serialized)
        } else {
            for (index, section) in report.sections.filter({ !$0.rows.isEmpty }).enumerated() {
                if index > 0 { output.print("") }
                output.print(section.title)
                // Aligned within a section: one long path must not push every value aside.
                var table = Table(header: [])
                for row in section.rows { table.add(["", row.label, row.value]) }
                for line in table.lines.dropFirst() { output.print(line) }
            }
        }
        return ExitStatus(rawValue: report.exitStatus) ?? .failure
    }
}
