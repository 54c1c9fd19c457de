import Foundation
import Testing
import TestSupport

/// `Terminal=true` mail programs, with Debian's own `neomutt.desktop`
/// (from the `neomutt` package) and recording scripts in place of neomutt and of the
/// terminal emulators: on mailto-route's own terminal the program runs there, in the
/// foreground; without one, in the user's terminal emulator; with none, the click saves a
/// draft and `check` says so first.
@Suite struct TerminalProgramTests {
    static let url = "mailto:a@example.org?subject=Hi"

    /// A sandbox with Debian's neomutt.desktop as the default `mailto:` handler, a
    /// recording `neomutt`, and a `PATH` on which no terminal of the machine's is found.
    func neomuttSandbox() throws -> (Sandbox, [String: String]) {
        let sandbox = try Sandbox()
        let desktop = try String(contentsOfFile: Sandbox.neomuttDesktopFile, encoding: .utf8)
        #expect(desktop.contains("\nExec=neomutt %u\n") && desktop.contains("\nTerminal=true\n"))
        try sandbox.installNeomutt()
        try sandbox.setDefaultMailHandler("neomutt.desktop")
        return (sandbox, ["PATH": try sandbox.isolatedPath()])
    }

    @Test func withoutATerminalNeomuttRunsInXTerminalEmulator() throws {
        let (sandbox, environment) = try neomuttSandbox()
        try sandbox.installRecorder("x-terminal-emulator")
        let result = try routeWithoutTerminal(["open", Self.url], in: sandbox, environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "handed off to neomutt (neomutt.desktop)\n", "\(result)")
        #expect(sandbox.recordedArgv("x-terminal-emulator") == ["-e", "neomutt", Self.url])
        #expect(sandbox.drafts.isEmpty)
    }

    @Test func terminalVariableComesBeforeXTerminalEmulator() throws {
        let (sandbox, environment) = try neomuttSandbox()
        try sandbox.installRecorder("x-terminal-emulator")
        let mine = try sandbox.installRecorder("myterm")
        var extra = environment
        extra["TERMINAL"] = mine
        let result = try routeWithoutTerminal(["open", Self.url], in: sandbox, extra)
        #expect(result.status == 0, "\(result)")
        // A terminal mailto-route does not know is run the way $TERMINAL users rely on: -e.
        #expect(sandbox.recordedArgv("myterm") == ["-e", "neomutt", Self.url])
        #expect(sandbox.neverLaunched("x-terminal-emulator"))
    }

    @Test(arguments: [("kitty", [String]()), ("wezterm", ["start", "--"]), ("xfce4-terminal", ["-x"])])
    func terminalVariableNamingAKnownTerminalUsesItsOwnWay(name: String, separator: [String]) throws {
        let (sandbox, environment) = try neomuttSandbox()
        try sandbox.installRecorder(name)
        var extra = environment
        extra["TERMINAL"] = name
        let result = try routeWithoutTerminal(["open", Self.url], in: sandbox, extra)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv(name) == separator + ["neomutt", Self.url])
    }

    @Test(arguments: [("KDE", "konsole", ["-e"]), ("GNOME", "gnome-terminal", ["--"]), ("XFCE", "xfce4-terminal", ["-x"])])
    func withoutTheAlternativeTheDesktopsOwnTerminalIsUsed(desktop: String, terminal: String, separator: [String]) throws {
        let (sandbox, environment) = try neomuttSandbox()
        for other in ["konsole", "gnome-terminal", "xfce4-terminal"] { try sandbox.installRecorder(other) }
        var extra = environment
        extra["XDG_CURRENT_DESKTOP"] = "ubuntu:\(desktop)"
        let result = try routeWithoutTerminal(["open", Self.url], in: sandbox, extra)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv(terminal) == separator + ["neomutt", Self.url])
    }

    @Test func attachmentsGoToNeomuttInTheTerminalEmulator() throws {
        let (sandbox, environment) = try neomuttSandbox()
        try sandbox.installRecorder("x-terminal-emulator")
        let file = try sandbox.write("report", to: "files/report.pdf").path
        let result = try routeWithoutTerminal(["send", Self.url, "--handoff", "--attach", file], in: sandbox, environment)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("x-terminal-emulator") == ["-e", "neomutt", "-a", file, "--", Self.url])
        #expect(sandbox.drafts.isEmpty)
    }

    /// The click and `check` agree: with no terminal at all the click saves a draft and
    /// says why, and `check` said so first (exit 1, the problem and its fix); once a
    /// terminal is installed both say neomutt runs in it, and the click does so.
    @Test func withNoTerminalTheClickSavesADraftAndCheckSaysSoFirst() throws {
        let (sandbox, environment) = try neomuttSandbox()
        #expect(try routeWithoutTerminal(["register"], in: sandbox, environment).status == 0)

        let check = try routeWithoutTerminal(["check", "--offline", "--json"], in: sandbox, environment)
        #expect(check.status == 1, "\(check)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])
        let verdict = try #require((object["verdict"] as? [String: Any])?["sentence"] as? String, "\(check.stdout)")
        #expect(verdict.hasPrefix("would save a draft: neomutt (neomutt.desktop) must run in a terminal"), "\(verdict)")
        let problems = (object["problems"] as? [[String: Any]] ?? []).compactMap { $0["fix"] as? String }
        #expect(problems.contains { $0.hasPrefix("install a terminal emulator") }, "\(problems)")
        let handoff = try #require(object["handoff"] as? [String: Any])
        #expect((handoff["problem"] as? String)?.contains("$TERMINAL is not set") == true, "\(handoff)")

        let click = try routeWithoutTerminal(["open", Self.url], in: sandbox, environment)
        #expect(click.status == 3, "\(click)")
        #expect(click.stderr.contains("must run in a terminal"), "\(click)")
        #expect(sandbox.drafts.count == 1)
        #expect(sandbox.neverLaunched("neomutt"))

        let terminal = try sandbox.installRecorder("x-terminal-emulator")
        let table = try routeWithoutTerminal(["check", "--offline"], in: sandbox, environment)
        #expect(table.status == 0, "\(table)")
        #expect(table.stdout.contains(" would open neomutt\n"), "\(table)")
        #expect(table.stdout.contains("in a terminal: \(terminal) -e neomutt %u"), "\(table)")
        let second = try routeWithoutTerminal(["open", Self.url], in: sandbox, environment)
        #expect(second.status == 0, "\(second)")
        #expect(sandbox.recordedArgv("x-terminal-emulator") == ["-e", "neomutt", Self.url])
    }

    /// While mailto-route is not the default, GIO opens links itself, and GIO 2.74 finds
    /// none of its terminals here: `check` says that a click would not open neomutt.
    @Test func checkSaysGIOFindsNoTerminalWhileNotRegistered() throws {
        let (sandbox, environment) = try neomuttSandbox()
        let check = try routeWithoutTerminal(["check", "--offline"], in: sandbox, environment)
        #expect(check.status == 1, "\(check)")
        #expect(check.stdout.contains("a click            would not open neomutt: neomutt (neomutt.desktop) must run in a terminal"), "\(check)")
        #expect(check.stdout.contains("fix      mailto-route register (mailto-route also finds $TERMINAL and x-terminal-emulator)"), "\(check)")
        // GIO agrees: it cannot launch it.
        let gio = try judge("/usr/bin/gio", ["open", Self.url], in: sandbox, environment)
        #expect(gio.status != 0 && gio.stderr.contains("terminal"), "\(gio)")
    }

    // MARK: - On mailto-route's own terminal

    /// A `neomutt` that records its argv, whether its standard streams are a terminal and
    /// whether it is in that terminal's foreground process group, then takes a while and
    /// says it is done.
    func installTerminalNeomutt(_ sandbox: Sandbox, exitStatus: Int = 0) throws {
        let records = sandbox.recordsDirectory.path
        try sandbox.installScript("neomutt", """
            printf '%s\\0' "$@" > '\(records)/neomutt.argv'
            [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo terminal > '\(records)/neomutt.tty'
            set -- $(cat /proc/$$/stat)
            # pgrp (5) equal to the terminal's foreground group (8): in the foreground.
            [ "$5" = "$8" ] && echo foreground > '\(records)/neomutt.foreground'
            sleep 0.5
            echo done > '\(records)/neomutt.done'
            exit \(exitStatus)
            """)
    }

    @Test func onATerminalNeomuttRunsOnThatTerminalInTheForegroundAndIsWaitedFor() throws {
        let (sandbox, environment) = try neomuttSandbox()
        try sandbox.installRecorder("x-terminal-emulator")
        try installTerminalNeomutt(sandbox)
        let result = try runOnTerminal([mailtoRouteBinary, "open", Self.url], environment: sandbox.environment(environment))
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("handed off to neomutt (neomutt.desktop)"), "\(result)")
        #expect(sandbox.recordedArgv("neomutt", timeout: 0) == [Self.url])
        let records = sandbox.recordsDirectory
        // Its standard input, output and error are the terminal, whose foreground it is.
        #expect(sandbox.contents(records.appendingPathComponent("neomutt.tty")) == "terminal\n")
        #expect(sandbox.contents(records.appendingPathComponent("neomutt.foreground")) == "foreground\n")
        // Waited for: done before mailto-route reported.
        #expect(sandbox.contents(records.appendingPathComponent("neomutt.done")) == "done\n")
        #expect(sandbox.recordedArgv("x-terminal-emulator", timeout: 0) == nil)
    }

    @Test func onATerminalAttachmentsGoToNeomuttThere() throws {
        let (sandbox, environment) = try neomuttSandbox()
        try installTerminalNeomutt(sandbox)
        let file = try sandbox.write("report", to: "files/report.pdf").path
        let result = try runOnTerminal([mailtoRouteBinary, "send", Self.url, "--handoff", "--attach", file],
                                       environment: sandbox.environment(environment))
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("neomutt", timeout: 0) == ["-a", file, "--", Self.url])
        #expect(sandbox.contents(sandbox.recordsDirectory.appendingPathComponent("neomutt.done")) == "done\n")
    }

    @Test func onATerminalNeomuttThatFailsLeavesADraft() throws {
        let (sandbox, environment) = try neomuttSandbox()
        try installTerminalNeomutt(sandbox, exitStatus: 1)
        let result = try runOnTerminal([mailtoRouteBinary, "open", Self.url], environment: sandbox.environment(environment))
        #expect(result.status == 3, "\(result)")
        #expect(result.stdout.contains("ended with exit status 1 on this terminal"), "\(result)")
        #expect(sandbox.drafts.count == 1)
    }
}
