#if canImport(Glibc)
import Glibc
#endif
import MailtoRoute
import Outbox

/// The compose sheet lives in a second program, `mailto-route-desktop`, installed beside
/// this one: GTK is loaded only where a sheet is shown, never on the handoff or send path
/// (docs/design.md, Performance). `open` and `compose` ask for it when a person can see it.
/// Either way the sheet's answer is the RouteReport as data, printed here with the command
/// line's own output.
enum DesktopSheet {
    /// Shows `request`'s sheet and prints what came of it (`--json` as `json` says); the
    /// exit status, or `nil` when no sheet could be shown (no sheet program, GTK could not
    /// start), so the caller goes on as before.
    static func run(_ request: ServiceProtocol.Request, session: Session, json: Bool, output: Output) -> ExitStatus? {
        var request = request
        request.notify = !hasTerminal()
        // The click's activation token: Wayland's, else X11's startup notification id.
        // (This program does not load GTK, so the environment still holds it; the sheet
        // program started below inherits it and reads it as it was started.)
        request.activationToken = ClickTokenEnvironment.current()
        // The desktop service first: one process for every sheet of the session, started
        // by D-Bus activation when it does not run, and a sheet at once when it does. One
        // with no display of its own (its activation environment lacked one) says so:
        // this run, which has one, shows the sheet itself.
        do throws(DesktopError) {
            if let outcome = try SheetService.compose(request), outcome.status != ServiceProtocol.noDisplay {
                return present(outcome, session: session, json: json, output: output)
            }
        } catch {
            output.error("mailto-route: " + error.message)
            return .failure
        }
        return runSheetProgram(request, session: session, json: json, output: output)
    }

    /// `mailto-route-desktop` (from this binary's directory) on this process's standard
    /// input, output and error, its report written to a file of its own in `directory`.
    private static func runSheetProgram(
        _ request: ServiceProtocol.Request, session: Session, json: Bool, output: Output
    ) -> ExitStatus? {
        guard let path = SheetService.sheetProgram else { return nil }
        guard let file = try? makeTemporaryFile(in: session.storage.stateDirectory, prefix: "mailto-route-sheet-", suffix: ".json") else { return nil }
        try? file.close()
        defer { unlink(file.path) }
        // The POSIX layer's foreground run: this process's streams, waited for.
        guard let status = runInForeground([path] + request.sheetProgramWords + ["--report-file", file.path]) else { return nil }
        // Killed by a signal: the sheet is gone without a report (its recovery file stays).
        guard case .exited(let code) = status else { return .failure }
        if code == ServiceProtocol.noDisplay { return nil }
        let bytes = (try? readFileIfExists(file.path)) ?? nil
        let report = bytes.map { String(decoding: $0, as: UTF8.self) }
        return present(ServiceProtocol.Answer(status: code, report: report?.isEmpty == false ? report : nil, message: ""),
                       session: session, json: json, output: output)
    }

    /// The sheet's answer printed as every route's is; the sheet's side told it in a
    /// notification already when nobody is at this terminal. The report says how the link
    /// arrived here, as the log line the sheet wrote does.
    private static func present(_ outcome: ServiceProtocol.Answer, session: Session, json: Bool, output: Output) -> ExitStatus {
        guard let text = outcome.report, let report = RouteReport(json: text).map({ session.arrived($0, source: .link) }) else {
            if !outcome.message.isEmpty { output.error("mailto-route: " + outcome.message) }
            return ExitStatus(rawValue: outcome.status) ?? .failure
        }
        output.present(report, json: json)
        return ExitStatus(for: report)
    }
}
