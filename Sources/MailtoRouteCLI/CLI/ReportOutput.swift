import MailtoRoute

extension ExitStatus {
    /// docs/design.md's exit status for what a route came to (`RouteReport.exitStatus`).
    init(for report: RouteReport) {
        self = ExitStatus(rawValue: report.exitStatus) ?? .failure
    }
}

extension Output {
    /// Says what a route came to: as JSON or readable lines (a failure on standard error).
    func present(_ report: RouteReport, json: Bool) {
        if json {
            print(report.json.serialized)
        } else {
            printReportLines(report.readableLines, failed: report.result == .failed)
        }
    }
}

extension Context {
    /// Says what a route came to, and, for a link with nobody at a terminal, as a desktop
    /// notification too, since the user would otherwise never learn what happened.
    func present(_ report: RouteReport, json: Bool, source: RouteRequest.Source) {
        output.present(report, json: json)
        if source == .link, !hasTerminal() { services.notifier.tell(report) }
    }
}

extension Output {
    /// A report's readable lines: what happened on standard output (standard error for a
    /// failure); warnings, as every warning, on standard error.
    func printReportLines(_ lines: [String], failed: Bool) {
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("warning: ") {
                error(line)
            } else if failed {
                error(index == 0 ? "mailto-route: \(line)" : line)
            } else {
                print(line)
            }
        }
    }
}
