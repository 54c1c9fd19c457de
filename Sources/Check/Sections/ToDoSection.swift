import MailtoRoute

/// Each warning, and each problem with the step that fixes it.
struct ToDoSection: CheckSection {
    let problems: [CheckReport.Problem]
    let warnings: [String]

    var title: String { "To do" }

    var rows: [(label: String, value: String)] {
        warnings.map { ("warning", $0) } + problems.flatMap { [("problem", $0.problem), ("fix", $0.fix)] }
    }

    var jsonMembers: [(String, JSON)] {
        [("warnings", .strings(warnings)),
         ("problems", .array(problems.map {
             .object([("problem", .string($0.problem)), ("fix", .string($0.fix)), ("configuration", .bool($0.isConfiguration))])
         }))]
    }
}

extension CheckReport {
    var toDoSection: ToDoSection { ToDoSection(problems: problems, warnings: warnings) }
}
