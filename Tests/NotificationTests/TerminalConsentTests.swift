import Foundation
import Testing
import TestSupport

/// Consent asked on a terminal: `consent-probe ask` runs on a pseudo-terminal of its own
/// (its controlling terminal, so the prompt reads `/dev/tty`) and a driver types answers.
@Suite struct TerminalConsentTests {
    func ask(_ answers: [String], options: [String] = [], url: String = "mailto:joe@example.org?subject=Hi",
             typeahead: String? = nil) throws -> RunResult {
        let sandbox = try Sandbox()
        return try probeOnTerminal(["ask", "--timeout", "10"] + options + [url], answers: answers,
                                   typeahead: typeahead, in: sandbox)
    }

    @Test(arguments: [
        ("s", "send"), ("S", "send"), ("send", "send"), ("h", "handOff"), (" h ", "handOff"), ("c", "cancel"),
    ])
    func answerDecides(answer: String, decision: String) throws {
        let result = try ask([answer])
        #expect(result.status == 0, "\(result)")
        #expect(result.decision == decision, "\(result)")
    }

    @Test func withoutMailProgramTheSecondChoiceSavesADraft() throws {
        let result = try ask(["d"], options: ["--no-handler"])
        #expect(result.stdout.contains("[s]end, save as [d]raft, [c]ancel? "), "\(result)")
        #expect(result.decision == "save", "\(result)")
    }

    @Test func handOffIsNotOfferedWithoutAMailProgram() throws {
        let result = try ask(["h", "c"], options: ["--no-handler"])
        #expect(result.decision == "cancel", "\(result)")
    }

    @Test func promptNamesTheMailProgram() throws {
        let result = try ask(["c"], options: ["--handler", "Thunderbird Mail"])
        #expect(result.stdout.contains("[s]end, [h]and off to Thunderbird Mail, [c]ancel? "), "\(result)")
    }

    /// Only an explicit `c` discards the message; no answer hands it off or saves it.
    @Test func endOfInputIsNoConsentNotACancel() throws {
        let result = try ask(["EOF"])
        #expect(result.decision?.hasPrefix("notConsented") == true, "\(result)")
        #expect(result.stdout.contains("No answer (end of input): not sent."))
    }

    @Test func garbageIsAskedAgainThenIsNoConsent() throws {
        let result = try ask(["yes please", "x", "sned"])
        #expect(result.decision?.hasPrefix("notConsented") == true, "\(result)")
        #expect(result.stdout.components(separatedBy: "Please answer s, h, c.").count == 3)
        #expect(result.stdout.contains("No answer understood: not sent."))
    }

    @Test func garbageThenAnAnswerCounts() throws {
        let result = try ask(["x", "s"])
        #expect(result.decision == "send", "\(result)")
    }

    @Test func enterAloneNeverSends() throws {
        let result = try ask(["", "", ""])
        #expect(result.decision?.hasPrefix("notConsented") == true, "\(result)")
    }

    @Test func typeaheadDoesNotAnswer() throws {
        let result = try ask(["c"], typeahead: "s")
        #expect(result.decision == "cancel", "\(result)")
    }

    @Test func noAnswerInTimeIsNotConsent() throws {
        let sandbox = try Sandbox()
        let result = try probeOnTerminal(["ask", "--timeout", "1", "mailto:joe@example.org"], answers: [], in: sandbox)
        #expect(result.decision == "notConsented: no answer on the terminal within 1 s", "\(result)")
    }

    @Test func promptShowsEveryFieldEscaped() throws {
        let result = try ask(["c"], options: ["--from", "Jane Doe <jane@example.org>", "--server", "smtp.example.org:587"],
                             url: disguisedURL)
        let screen = result.stdout
        #expect(screen.contains("From:    Jane Doe <jane@example.org>\r\n"), "\(result)")
        #expect(screen.contains("To:      joe@example.org\r\n"))
        #expect(screen.contains("Cc:      ann@example.org\r\n"))
        #expect(screen.contains("Bcc:     bob@example.org\r\n"))
        #expect(screen.contains("Subject: invoice\\u{202E}fdp.exe\r\n"))
        #expect(screen.contains("    \\u{1B}[31mred\r\n    second line\r\n"))
        #expect(screen.contains("It would be sent as Jane Doe <jane@example.org> through smtp.example.org:587."))
        #expect(!screen.unicodeScalars.contains("\u{202E}"))
        #expect(!screen.unicodeScalars.contains("\u{1B}"))
    }

    /// What a link asked to attach is never silently gone.
    @Test func eachFileTheLinkAskedToAttachIsNamedAsNotAttached() throws {
        let result = try ask(["h"], url: requestedAttachmentsURL)
        let screen = result.stdout
        #expect(screen.contains("Attach:  /etc/passwd will not be attached\r\n"), "\(result)")
        #expect(screen.contains("Attach:  /home/joe/report 2026.pdf will not be attached\r\n"), "\(result)")
        #expect(screen.contains("Attach:  /tmp/x\\u{202E}fdp.exe will not be attached\r\n"), "\(result)")
        #expect(screen.contains("A link cannot attach files: to send one, hand off to Fake Bird and attach it there."))
        #expect(screen.contains("[s]end, [h]and off to Fake Bird, [c]ancel? "))
        #expect(result.decision == "handOff", "\(result)")
    }

    @Test func withoutMailProgramTheFilesAreNamedAndADraftOffered() throws {
        let result = try ask(["c"], options: ["--no-handler"], url: requestedAttachmentsURL)
        #expect(result.stdout.contains("Attach:  /etc/passwd will not be attached\r\n"), "\(result)")
        #expect(result.stdout.contains("save a draft and attach it in your mail program"), "\(result)")
    }

    @Test func longBodyShowsItsFirstLines() throws {
        let body = (1...20).map { "line\($0)" }.joined(separator: "%0D%0A")
        let result = try ask(["c"], url: "mailto:joe@example.org?body=\(body)")
        #expect(result.stdout.contains("    line6\r\n    … (14 more lines)\r\n"), "\(result)")
        #expect(!result.stdout.contains("line7"))
    }

    @Test func noTerminalAndNoBusIsNeverSend() throws {
        let sandbox = try Sandbox()
        let result = try probeWithoutTerminal(["ask", "mailto:joe@example.org"], in: sandbox)
        #expect(result.decision?.hasPrefix("notConsented: ") == true, "\(result)")
    }

    @Test func backgroundJobDoesNotAskOnTheTerminal() throws {
        let sandbox = try Sandbox()
        // `set -m`: the job gets a process group of its own, not the terminal's foreground.
        let result = try runOnTerminal(
            ["/bin/sh", "-c", "set -m; \"$0\" ask mailto:joe@example.org & wait", consentProbe],
            environment: sandbox.environment, timeout: 10)
        #expect(result.decision?.hasPrefix("notConsented: cannot ask with a notification") == true, "\(result)")
        #expect(!result.stdout.contains("[c]ancel? "))
    }

    @Test func terminalChannelWithoutATerminalIsNotConsent() throws {
        let sandbox = try Sandbox()
        let result = try probeWithoutTerminal(["ask", "--channel", "terminal", "mailto:joe@example.org"], in: sandbox)
        #expect(result.decision == "notConsented: no terminal to ask on", "\(result)")
    }
}
