#if canImport(Glibc)
import Glibc
#endif
import MailtoRoute

/// The compose sheet lives in a second program, `mailto-route-desktop`, installed beside
/// this one: GTK is loaded only where a sheet is shown, never on the handoff or send path
/// (docs/design.md, Performance). `open` and `compose` start it when a person can see it.
enum DesktopSheet {
    /// What `mailto-route-desktop` exits with when GTK cannot start (EX_UNAVAILABLE): it
    /// showed nothing and did nothing, and today's path runs instead.
    static let cannotStart: Int32 = 69

    /// Runs `mailto-route-desktop` (from this binary's directory) with `arguments` on this
    /// process's standard input, output and error, and returns its exit status; `nil` when
    /// it is not there or GTK could not start, so the caller goes on as before.
    static func run(_ arguments: [String]) -> ExitStatus? {
        // The desktop service first: one process for every sheet of the session, started
        // by D-Bus activation when it does not run, and a sheet at once when it does.
        do throws(DesktopError) {
            // The click's activation token: Wayland's, else X11's startup notification id.
            let token = (getenv("XDG_ACTIVATION_TOKEN") ?? getenv("DESKTOP_STARTUP_ID")).map { String(cString: $0) }
            // A service with no display of its own (its activation environment lacked one)
            // answers `cannotStart`: this run, which has one, shows the sheet itself.
            if let outcome = try SheetService.run(arguments, notify: !hasTerminal(), activationToken: token),
               outcome.status != cannotStart {
                Output().write(outcome.standardOutput, to: 1)
                Output().write(outcome.standardError, to: 2)
                return ExitStatus(rawValue: outcome.status) ?? .failure
            }
        } catch {
            Output().write("mailto-route: \(error.message)\n", to: 2)
            return .failure
        }
        guard let path = SheetService.sheetProgram else { return nil }
        // The POSIX layer's foreground run: this process's streams, waited for.
        guard let status = runInForeground([path] + arguments) else { return nil }
        // Killed by a signal: the sheet is gone without a report (its recovery file stays).
        guard case .exited(let code) = status else { return .failure }
        if code == cannotStart { return nil }
        return ExitStatus(rawValue: code) ?? .failure
    }
}
