import Foundation
import Testing
import TestSupport

/// `mailto-route compose`: the message in the user's editor (here a script that edits the
/// file as a person would), then send, save or cancel, answered on a real terminal.
@Suite struct ComposeTests {
    /// An editor that sets the subject, adds a Cc and writes a body line.
    func setUp(editorExit: Int = 0) throws -> (Sandbox, SMTPTestServer, [String: String]) {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let editor = try sandbox.write("""
            #!/bin/sh
            # The file is the last argument, as editors take it.
            for file in "$@"; do :; done
            sed -i -e 's/^Subject:.*/Subject: Written here/' -e 's/^Cc:.*/Cc: Ann <ann@example.org>/' "$file"
            printf 'Typed in the editor\\n' >> "$file"
            exit \(editorExit)

            """, to: "bin/fake-editor", mode: 0o755)
        // An editor setting with an argument, as users write them.
        return (sandbox, server, sandbox.environment(["VISUAL": "\(editor.path) --wait", "EDITOR": ""]))
    }

    @Test func sendSendsWhatWasWritten() throws {
        let (sandbox, server, environment) = try setUp()
        let result = try runOnTerminal([mailtoRouteBinary, "compose", "mailto:joe@example.com?subject=Hi"],
                                       answers: ["s"], environment: environment)
        #expect(result.status == 0, "\(result)")
        let message = try #require(server.messages.first)
        #expect(try sandbox.header("Subject", of: message) == "Written here")
        // The name written in the editor goes out with the address.
        #expect(try sandbox.header("Cc", of: message) == "Ann <ann@example.org>")
        #expect(try server.envelope(of: message)["rcpt_tos"] as? [String] == ["joe@example.com", "ann@example.org"])
        #expect(try String(contentsOf: message, encoding: .utf8).contains("Typed in the editor"))
    }

    /// The account's signature is in the editor's text below a new message, after `-- `
    /// (RFC 3676), and goes out as left there, judged by Python's `email` package.
    @Test func theAccountsSignatureIsBelowTheNewMessage() throws {
        let (sandbox, server, environment) = try setUp()
        let config = sandbox.root.appendingPathComponent("home/.config/mailto-route/config")
        try (try String(contentsOf: config, encoding: .utf8) + "signature=Jane Doe\\nExample Org\n")
            .write(to: config, atomically: true, encoding: .utf8)
        let result = try runOnTerminal([mailtoRouteBinary, "compose", "mailto:joe@example.com?subject=Hi&body=Hello"],
                                       answers: ["s"], environment: environment)
        #expect(result.status == 0, "\(result)")
        let view = try pythonView(of: try #require(server.messages.first))
        let parts = try #require(view["parts"] as? [[String: Any]])
        let text = (parts.first?["text"] as? String)?.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(text?.hasPrefix("Hello\n\n-- \nJane Doe\nExample Org") == true, "\(parts)")
    }

    /// The question before sending labels each recipient by its field.
    @Test func theSummaryLabelsToCcAndBcc() throws {
        let (sandbox, server, environment) = try setUp()
        let result = try runOnTerminal([mailtoRouteBinary, "compose", "mailto:joe@example.com?bcc=hidden@example.org"],
                                       answers: ["c"], environment: environment)
        #expect(result.status == 4, "\(result)")
        #expect(result.stdout.contains("To: joe@example.com\r\nCc: ann@example.org\r\nBcc: hidden@example.org\r\nSubject: Written here"),
                "\(result)")
        #expect(server.messages.isEmpty)
        #expect(sandbox.drafts.isEmpty)
    }

    @Test func draftKeepsItAndSendsNothing() throws {
        let (sandbox, server, environment) = try setUp()
        let result = try runOnTerminal([mailtoRouteBinary, "compose", "mailto:joe@example.com"], answers: ["d"],
                                       environment: environment)
        #expect(result.status == 3, "\(result)")
        let draft = try #require(sandbox.drafts.first)
        #expect(try sandbox.header("Subject", of: draft) == "Written here")
        #expect(server.messages.isEmpty)
    }

    @Test func cancelDiscardsItAndExitsFour() throws {
        let (sandbox, server, environment) = try setUp()
        let result = try runOnTerminal([mailtoRouteBinary, "compose", "mailto:joe@example.com"], answers: ["c"],
                                       environment: environment)
        #expect(result.status == 4, "\(result)")
        #expect(sandbox.drafts.isEmpty)
        #expect(server.messages.isEmpty)
        // Nothing of it stays behind: the editor's file is removed too.
        let composeDirectory = sandbox.stateHome.appendingPathComponent("mailto-route/compose")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: composeDirectory.path))?.isEmpty ?? true)
    }

    @Test func endOfInputKeepsADraft() throws {
        let (sandbox, server, environment) = try setUp()
        let result = try runOnTerminal([mailtoRouteBinary, "compose", "mailto:joe@example.com"], answers: ["EOF"],
                                       environment: environment)
        #expect(result.status == 3, "\(result)")
        #expect(sandbox.drafts.count == 1)
        #expect(server.messages.isEmpty)
    }

    /// Whatever the editor did, what the user wrote is kept.
    @Test func aFailingEditorKeepsWhatWasWrittenAsADraft() throws {
        let (sandbox, server, environment) = try setUp(editorExit: 2)
        let result = try runOnTerminal([mailtoRouteBinary, "compose", "mailto:joe@example.com"], environment: environment)
        #expect(result.status == 3, "\(result)")
        #expect(result.stdout.contains("the editor exited with status 2"))
        let draft = try #require(sandbox.drafts.first)
        #expect(try sandbox.header("Subject", of: draft) == "Written here")
        #expect(server.messages.isEmpty)
    }

    /// A draft that cannot be written (its directory is a file here) keeps nothing: the
    /// editor's file is left where it is, and the report names it.
    @Test(arguments: [(2, [String]()), (0, ["d"])])
    func whatCannotBeSavedStaysInTheEditorsFile(editorExit: Int, answers: [String]) throws {
        let (sandbox, server, environment) = try setUp(editorExit: editorExit)
        try sandbox.write("not a directory", to: "home/.local/share/mailto-route/drafts")
        let result = try runOnTerminal([mailtoRouteBinary, "compose", "mailto:joe@example.com"], answers: answers,
                                       environment: environment)
        #expect(result.status != 0 && result.status != 3, "\(result)")
        #expect(!result.stdout.contains("kept as a draft"), "\(result)")
        let composeDirectory = sandbox.stateHome.appendingPathComponent("mailto-route/compose")
        let left = try FileManager.default.contentsOfDirectory(atPath: composeDirectory.path)
        let file = try #require(left.first, "\(result)")
        #expect(result.stdout.contains("what you wrote is kept in \(composeDirectory.appendingPathComponent(file).path)"), "\(result)")
        let kept = try String(contentsOf: composeDirectory.appendingPathComponent(file), encoding: .utf8)
        #expect(kept.contains("Typed in the editor") && kept.contains("Subject: Written here"), "\(kept)")
        #expect(server.messages.isEmpty)
    }

    /// Text an editor wrote in Latin-1 is not mended behind the user's back: the draft
    /// has it as U+FFFD, the report says so, and the file as written stays.
    @Test func textThatIsNotUTF8IsSaidAndKeptAsWritten() throws {
        let (sandbox, _) = try sandboxWithAccount()
        let environment = try writingEditor(sandbox, "To: joe@example.com\nSubject: Caf\\351\n\nna\\357ve\n")
        let result = try runOnTerminal([mailtoRouteBinary, "compose"], answers: ["d"], environment: environment)
        #expect(result.status == 3, "\(result)")
        #expect(result.stdout.contains("what you wrote is not UTF-8 text"), "\(result)")
        let composeDirectory = sandbox.stateHome.appendingPathComponent("mailto-route/compose")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: composeDirectory.path).first)
        let bytes = try Data(contentsOf: composeDirectory.appendingPathComponent(file))
        #expect(bytes.contains(0xE9) && bytes.contains(0xEF), "kept as written")
        #expect(sandbox.drafts.count == 1)
    }

    @Test func withoutATerminalItIsAUsageError() throws {
        let sandbox = try Sandbox()
        let result = try run("/usr/bin/setsid", ["-w", mailtoRouteBinary, "compose"], environment: sandbox.environment)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("compose needs a terminal"))
    }
}

extension ComposeTests {
    /// A header that does not read (here a NUL typed into an address) keeps the whole text.
    @Test func aHeaderThatDoesNotReadKeepsTheWholeTextAsADraft() throws {
        let sandbox = try Sandbox()
        let editor = try sandbox.write("""
            #!/bin/sh
            for file in "$@"; do :; done
            printf 'To: a\\000b@example.org\\n\\nMy precious text\\n' > "$file"

            """, to: "bin/nul-editor", mode: 0o755)
        let result = try runOnTerminal([mailtoRouteBinary, "compose"], environment: sandbox.environment(["VISUAL": editor.path]))
        #expect(result.status == 3, "\(result)")
        let draft = try #require(sandbox.drafts.first)
        #expect(try String(contentsOf: draft, encoding: .utf8).contains("My precious text"))
    }

    /// A sandbox whose account sends to a fresh loopback server.
    func sandboxWithAccount() throws -> (Sandbox, SMTPTestServer) {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        return (sandbox, server)
    }

    /// An editor that replaces the file with `text` (printf format).
    func writingEditor(_ sandbox: Sandbox, _ text: String) throws -> [String: String] {
        let editor = try sandbox.write("""
            #!/bin/sh
            for file in "$@"; do :; done
            printf '\(text)' > "$file"

            """, to: "bin/writing-editor", mode: 0o755)
        return sandbox.environment(["VISUAL": editor.path])
    }

    /// Where the header ends: without the empty line after it, at the first line that is
    /// no `Name: value` (a line that starts with a space continues the field above); a
    /// line of spaces is the empty line.
    @Test(arguments: [
        ("To: joe@example.com\\nSubject: Lunch\\n  on Friday\\nHello Joe,\\nsee you: 5pm\\n", "Lunch on Friday", "Hello Joe,\r\nsee you: 5pm"),
        ("To: joe@example.com\\nSubject: Build log\\n \\n  make: error 2\\n", "Build log", "\r\n\r\n  make: error 2"),
    ])
    func theBodyStartsWhereTheHeaderEnds(text: String, subject: String, body: String) throws {
        let (sandbox, server) = try sandboxWithAccount()
        let environment = try writingEditor(sandbox, text)
        let result = try runOnTerminal([mailtoRouteBinary, "compose"], answers: ["s"], environment: environment)
        #expect(result.status == 0, "\(result)")
        let message = try #require(server.messages.first)
        #expect(try sandbox.header("Subject", of: message) == subject)
        let sent = try String(contentsOf: message, encoding: .utf8)
        #expect(sent.contains(body), "\(sent)")
    }

    /// A header that does not read is never guessed at: nothing is sent, and the whole
    /// text is kept as a draft, with the reason. A field the header does not take is not
    /// dropped; an address wrapped onto a line of its own does not move the fields after
    /// it into the body.
    @Test(arguments: [
        ("To: joe@example.com\\nFrom: boss@example.com\\n\\nMy precious text\\n",
         "field 'From' it does not take", ["From: boss@example.com", "My precious text"]),
        ("To: joe@example.com,\\nann@example.org\\nSubject: Lunch\\n\\nSee you\\n",
         "no 'Name: value' before its Subject field", ["ann@example.org", "See you"]),
    ])
    func aHeaderThatDoesNotReadIsKeptWholeWithTheReason(text: String, reason: String, kept: [String]) throws {
        let (sandbox, server) = try sandboxWithAccount()
        let environment = try writingEditor(sandbox, text)
        let result = try runOnTerminal([mailtoRouteBinary, "compose"], answers: ["s"], environment: environment)
        #expect(result.status == 3, "\(result)")
        #expect((result.stdout + result.stderr).contains(reason), "\(result)")
        let draft = try String(contentsOf: try #require(sandbox.drafts.first), encoding: .utf8)
        #expect(kept.allSatisfy { draft.contains($0) }, "\(draft)")
        #expect(server.messages.isEmpty)
    }
}
