internal import CGIO
#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// The terminal emulator a `Terminal=true` program (mutt, neomutt) runs in when
/// mailto-route has no terminal of its own (a clicked link): the user's `$TERMINAL`, then
/// Debian's `x-terminal-emulator` alternative, then the desktop's own terminal, then any
/// other known one. GIO 2.74 knows a shorter list and not `x-terminal-emulator`, so a
/// desktop with neither gnome-terminal nor xterm could not start neomutt through GIO.
public struct TerminalEmulator: Sendable, Equatable {
    /// Where the terminal was found (`PATH` searched).
    public let path: String
    /// The words between the terminal and the command it runs (`-e`, `--`, none).
    public let separator: [String]
    /// How it was chosen: `$TERMINAL`, `x-terminal-emulator`, or `installed`.
    public let source: String

    /// The argv that runs `argv` in this terminal, each of its words an argv word.
    public func command(running argv: [String]) -> [String] {
        [path] + separator + argv
    }

    /// Each terminal's own way to run a command given as argv words after it (each of
    /// these takes the rest of its argv as the command; the ones that take one string to
    /// split, such as `gnome-terminal -e` or `tilix -e`, are used through the form that
    /// does not). Debian policy makes `x-terminal-emulator -e PROGRAM ARGS...` work.
    static let known: [(name: String, separator: [String])] = [
        ("x-terminal-emulator", ["-e"]), ("gnome-terminal", ["--"]), ("konsole", ["-e"]),
        ("xfce4-terminal", ["-x"]), ("mate-terminal", ["-x"]), ("terminator", ["-x"]),
        ("kitty", []), ("alacritty", ["-e"]), ("foot", []), ("wezterm", ["start", "--"]),
        ("xterm", ["-e"]), ("uxterm", ["-e"]), ("urxvt", ["-e"]), ("rxvt", ["-e"]), ("st", ["-e"]),
    ]

    /// The terminal of each desktop (`XDG_CURRENT_DESKTOP`), tried before the others.
    static let desktops: [String: String] = [
        "GNOME": "gnome-terminal", "UNITY": "gnome-terminal", "CINNAMON": "gnome-terminal",
        "KDE": "konsole", "XFCE": "xfce4-terminal", "MATE": "mate-terminal",
    ]

    /// The separator of a known terminal named `program` (a name or a path).
    static func separator(forProgram program: String) -> [String]? {
        let name = ExecLine.baseName(program)
        return known.first { $0.name == name }?.separator
    }

    /// The terminal to use: `terminalVariable` (`$TERMINAL`, a program name or path; run
    /// with its known separator, else `-e`, the convention `$TERMINAL` users rely on), then
    /// `x-terminal-emulator`, then the terminal of each of `currentDesktops`, then the
    /// other known ones. `nil` when none is installed.
    public static func find(terminalVariable: String?, currentDesktops: [String]) -> TerminalEmulator? {
        if let variable = terminalVariable, !variable.isEmpty, let path = findProgram(variable) {
            return TerminalEmulator(path: path, separator: separator(forProgram: variable) ?? ["-e"], source: "$TERMINAL")
        }
        var names = ["x-terminal-emulator"]
        names += currentDesktops.compactMap { desktops[$0.asciiUppercased()] }
        names += known.map(\.name)
        for name in names {
            if let path = findProgram(name), let separator = separator(forProgram: name) {
                return TerminalEmulator(path: path, separator: separator, source: name == "x-terminal-emulator" ? name : "installed")
            }
        }
        return nil
    }

    /// The user's terminal as the environment names it: `$TERMINAL` and
    /// `XDG_CURRENT_DESKTOP` (colon-separated), read here and nowhere else, then `find`.
    public static func fromEnvironment() -> (terminalVariable: String?, emulator: TerminalEmulator?) {
        let variable = getenv("TERMINAL").map { String(cString: $0) }
        let desktops = getenv("XDG_CURRENT_DESKTOP").map { String(cString: $0).split(separator: ":").map(String.init) } ?? []
        return (variable, find(terminalVariable: variable, currentDesktops: desktops))
    }

    /// What `find` looked for, for the message that says none was found.
    public static func searched(terminalVariable: String?) -> String {
        let variable = terminalVariable.map { $0.isEmpty ? tr("$TERMINAL is empty") : tr("$TERMINAL (%@) is not installed", $0) }
            ?? tr("$TERMINAL is not set")
        return tr("%@, and none of %@ is installed", variable, known.map(\.name).joined(separator: ", "))
    }

    /// Wraps `g_find_program_in_path` (transfer full).
    static func findProgram(_ name: String) -> String? {
        takeString(g_find_program_in_path(name))
    }
}
