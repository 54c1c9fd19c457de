import DesktopIntegration
import Testing

/// `Exec=` lines read in-process (GLib's `g_shell_parse_argv`, no GIO): the program each
/// really runs behind its wrappers, and the argv a client command line becomes.
@Suite struct ExecLineTests {
    @Test func envWithOptionsAndVariablesIsSeenThrough() throws {
        let line = try #require(ExecLine("env -u SESSION_MANAGER LANG=C.UTF-8 /usr/bin/neomutt %u"))
        #expect(line.wrappers == [.env])
        #expect(line.program == "/usr/bin/neomutt")
        #expect(line.programNames == ["neomutt"])
        #expect(line.command(arguments: ["-a", "/f", "--", "mailto:a@b"])
            == ["env", "-u", "SESSION_MANAGER", "LANG=C.UTF-8", "/usr/bin/neomutt", "-a", "/f", "--", "mailto:a@b"])
    }

    @Test func snapEntryRunsTheProgramBehindItsEnv() throws {
        let line = try #require(ExecLine(
            "env BAMF_DESKTOP_FILE_HINT=/var/lib/snapd/desktop/applications/thunderbird_thunderbird.desktop /snap/bin/thunderbird %u"))
        #expect(line.programNames == ["thunderbird"])
    }

    @Test func flatpakRunIsKnownByItsAppIDAndCommand() throws {
        let line = try #require(ExecLine(
            "/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=betterbird --file-forwarding eu.betterbird.Betterbird @@u %u @@"))
        #expect(line.wrappers == [.flatpak(appID: "eu.betterbird.Betterbird", command: "betterbird")])
        #expect(line.programNames == ["betterbird", "betterbird"])
    }

    @Test func tmuxOptionsAndSubcommandOptionsAreSkipped() throws {
        let line = try #require(ExecLine("tmux -L mail new-window -d -n 'Mail box' -t work: neomutt -F /etc/muttrc %u"))
        #expect(line.wrappers == [.tmux])
        #expect(line.program == "neomutt")
        #expect(line.command(arguments: ["--", "mailto:a@b"])
            == ["tmux", "-L", "mail", "new-window", "-d", "-n", "Mail box", "-t", "work:", "neomutt", "--", "mailto:a@b"])
    }

    @Test func tmuxWithoutANewWindowIsNoWrapperToPassWordsThrough() throws {
        let line = try #require(ExecLine("tmux attach neomutt %u"))
        #expect(!line.passesArguments)
        #expect(line.command(arguments: ["-a", "/f"]) == nil)
    }

    @Test func terminalDashEIsSeenThrough() throws {
        let line = try #require(ExecLine("xterm -title Mail -e mutt %u"))
        #expect(line.wrappers == [.terminal("xterm")])
        #expect(line.programNames == ["mutt"])
        #expect(line.command(arguments: ["-a", "/f"]) == ["xterm", "-title", "Mail", "-e", "mutt", "-a", "/f"])
    }

    /// gnome-terminal's `-e` takes one string that it splits itself: not argv words.
    @Test func terminalOptionTakingOneStringIsNotSeenThrough() throws {
        let line = try #require(ExecLine("gnome-terminal -e 'mutt %u'"))
        #expect(line.programNames == ["gnome-terminal"])
    }

    @Test(arguments: [#"sh -c 'neomutt "$1"' sh %u"#, "exo-open --launch MailReader %u", "env -S 'neomutt -a' %u"])
    func shellsAndLaunchersGetNoCommandLine(exec: String) throws {
        let line = try #require(ExecLine(exec))
        #expect(!line.passesArguments)
        #expect(line.command(arguments: ["-a", "/etc/passwd"]) == nil)
    }

    @Test func fieldCodesExpandAsGIOExpandsThem() throws {
        let line = try #require(ExecLine("mail --url=%u --name %c %i %f 100%% %U"))
        #expect(line.expanded(uris: ["mailto:a@b?subject=x%20y"], name: "My Mail", icon: "mail", desktopFile: "/x.desktop")
            == ["mail", "--url=mailto:a@b?subject=x%20y", "--name", "My Mail", "--icon", "mail", "100%", "mailto:a@b?subject=x%20y"])
    }

    @Test func execThatDoesNotSplitIsNone() {
        #expect(ExecLine("neomutt \"unclosed %u") == nil)
        #expect(ExecLine("") == nil)
    }
}
