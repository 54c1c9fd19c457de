import Foundation
import Outbox
import Testing
import TestSupport

/// The shell completions in data/, run by the real shells: bash's `complete -p` and the
/// function it names, given COMP_WORDS and COMP_CWORD as bash gives them; zsh's compinit
/// and a real Tab press in an interactive zsh on a pseudo-terminal (zsh/zpty).
@Suite struct CompletionTests {
    static let commands = ["open", "send", "compose", "check", "parse", "copy", "register", "unregister", "portal", "outbox", "drafts", "log", "account", "route", "webmail"]
    let bashScript = packageRoot.appendingPathComponent("data/mailto-route.bash").path
    let zshDirectory = packageRoot.appendingPathComponent("data").path
    /// Where the built mailto-route is: first in PATH, as an installed one would be.
    let binDirectory = URL(fileURLWithPath: mailtoRouteBinary).deletingLastPathComponent().path

    func environment(_ sandbox: Sandbox) -> [String: String] {
        var environment = sandbox.environment
        environment["PATH"] = binDirectory + ":/usr/bin:/bin"
        return environment
    }

    /// What bash offers for `words` (the last one is being completed), one per line.
    func bash(_ words: [String], in sandbox: Sandbox) throws -> [String] {
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let result = try run("/bin/bash", ["--norc", "--noprofile", "-c", """
            source "$1" || exit 10
            [[ $(complete -p mailto-route) == "complete -F _mailto_route mailto-route" ]] || exit 11
            COMP_WORDS=(\(quoted)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _mailto_route
            printf '%s\\n' "${COMPREPLY[@]}"
            """, "completion-test", bashScript], environment: environment(sandbox))
        guard result.status == 0 else { throw TestServerError(message: "bash completion failed: \(result)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// What zsh's completion system offers after typing `line` and Tab: every word the
    /// completion functions add (compadd is wrapped to print them).
    func zsh(_ line: String, in sandbox: Sandbox) throws -> Set<String> {
        let driver = """
            zmodload zsh/zpty || exit 10
            zpty z zsh -f -i
            zpty -w z "PROMPT= ; RPROMPT= ; fpath=(${(q)1} \\$fpath); autoload -U compinit; compinit -u -D"
            zpty -w z 'print -r -- "<comps:$_comps[mailto-route]>"'
            zpty -w z 'compadd () { builtin compadd -O __hits "$@"; (( ${#__hits} )) && print -r -- "<hit>${(j:</hit><hit>:)__hits}</hit>"; builtin compadd "$@" }'
            zpty -w z "print -r -- '<ready>'"
            zpty -r z out '*<ready>*<ready>*' || exit 11
            [[ $out == *'<comps:_mailto-route>'* ]] || { print -r -- "not registered: $out"; exit 12 }
            zpty -w z "$2"$'\\t'
            # Tab runs the completion widget; ^U (kill-whole-line) then clears the line
            # without running it. The pause lets the widget start before more input comes.
            sleep 0.5
            zpty -w z $'\\C-u'
            zpty -w z "print -r -- '<done>'"
            out=""
            while zpty -r -t z chunk; do out+=$chunk; [[ $out == *'<done>'*'<done>'* ]] && break; done
            zpty -d z
            print -r -- ${(F)${(@)${(@M)${(s:</hit>:)out}:#*<hit>*}##*<hit>}}
            """
        let result = try run("/usr/bin/zsh", ["-f", "-c", driver, "zsh-completion-test", zshDirectory, line],
                             environment: environment(sandbox), timeout: 30)
        guard result.status == 0 else { throw TestServerError(message: "zsh completion failed: \(result)") }
        return Set(result.stdout.split(separator: "\n").map(String.init))
    }

    /// The options `mailto-route COMMAND --help` lists.
    func helpOptions(_ command: String, in sandbox: Sandbox) throws -> Set<String> {
        let help = try mailtoRoute([command, "--help"], in: sandbox).stdout
        var options = Set(help.split(separator: "\n").filter { $0.hasPrefix("  --") }.compactMap { $0.split(separator: " ").first.map(String.init) })
        options.insert("--help")
        return options
    }

    // MARK: - bash

    @Test func bashCompletesCommandsAndGlobalOptions() throws {
        let sandbox = try Sandbox()
        #expect(try bash(["mailto-route", ""], in: sandbox) == Self.commands + ["help"])
        #expect(try bash(["mailto-route", "o"], in: sandbox) == ["open", "outbox"])
        #expect(try bash(["mailto-route", "--"], in: sandbox) == ["--help", "--version", "--check"])
        #expect(try bash(["mailto-route", "help", "dr"], in: sandbox) == ["drafts"])
    }

    /// Each command's options are exactly the ones its help lists.
    @Test(arguments: commands)
    func bashOffersTheOptionsTheHelpLists(command: String) throws {
        let sandbox = try Sandbox()
        #expect(Set(try bash(["mailto-route", command, "--"], in: sandbox)) == (try helpOptions(command, in: sandbox)))
    }

    @Test func bashCompletesOutboxAndDraftIDsFromTheRealStores() throws {
        let sandbox = try Sandbox()
        let first = try outbox(in: sandbox).enqueue(message("Lunch?")).id
        let second = try outbox(in: sandbox).enqueue(message("Report")).id
        let drafts = Drafts(directory: sandbox.dataHome.appendingPathComponent("mailto-route/drafts").path)
        let draft = try drafts.save(message("Minutes").bytes).id

        #expect(try bash(["mailto-route", "outbox", ""], in: sandbox) == ["list", "show", "flush", "watch", "retry", "drop"])
        #expect(Set(try bash(["mailto-route", "outbox", "show", ""], in: sandbox)) == [first, second])
        #expect(try bash(["mailto-route", "outbox", "--json", "retry", String(second.prefix(20))], in: sandbox).contains(second))
        #expect(try bash(["mailto-route", "drafts", "send", ""], in: sandbox) == [draft])
        #expect(try bash(["mailto-route", "drafts", "drop", draft, ""], in: sandbox).isEmpty)
        // A flush takes no ID: nothing to offer.
        #expect(try bash(["mailto-route", "outbox", "flush", ""], in: sandbox).isEmpty)
    }

    @Test func bashCompletesFilesForAttachments() throws {
        let sandbox = try Sandbox()
        try sandbox.write("x", to: "files/report.pdf")
        let prefix = sandbox.root.appendingPathComponent("files/rep").path
        #expect(try bash(["mailto-route", "send", "--attach", prefix], in: sandbox) == [prefix + "ort.pdf"])
        #expect(try bash(["mailto-route", "send", "--subject", ""], in: sandbox).isEmpty)
    }

    // MARK: - zsh

    @Test func zshFileIsValidZsh() throws {
        let result = try run("/usr/bin/zsh", ["-n", zshDirectory + "/_mailto-route"])
        #expect(result.status == 0, "\(result)")
    }

    @Test func zshCompletesCommandsOptionsAndIDs() throws {
        let sandbox = try Sandbox()
        let entry = try outbox(in: sandbox).enqueue(message("Lunch?")).id
        let drafts = Drafts(directory: sandbox.dataHome.appendingPathComponent("mailto-route/drafts").path)
        let draft = try drafts.save(message("Minutes").bytes).id

        #expect(try zsh("mailto-route ", in: sandbox) == Set(Self.commands + ["help"]))
        #expect(try zsh("mailto-route outbox ", in: sandbox) == ["list", "show", "flush", "watch", "retry", "drop"])
        #expect(try zsh("mailto-route outbox show ", in: sandbox) == [entry])
        #expect(try zsh("mailto-route drafts drop ", in: sandbox) == [draft])
        for command in ["send", "log", "check"] {
            #expect(try zsh("mailto-route \(command) --", in: sandbox) == (try helpOptions(command, in: sandbox)), "\(command)")
        }
    }
}
