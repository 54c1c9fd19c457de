import Foundation
import Testing
import TestSupport

/// What a person reads is in their language (gettext, text domain `mailto-route`): under
/// `de_DE.UTF-8` the built binary finds the tree's German catalog (`.build/locale`, compiled
/// from po/de.po) and speaks German; what a program reads (`--json`, the outcome log) stays
/// as documented. The catalog's completeness is judged by GNU gettext's own tools.
@Suite struct TranslationTests {
    let sandbox: Sandbox

    init() throws {
        try compileCatalogs()
        sandbox = try Sandbox()
    }

    func german(_ arguments: [String]) throws -> RunResult {
        try run(mailtoRouteBinary, arguments, environment: inLocale("de_DE.UTF-8", sandbox.environment))
    }

    @Test func helpIsGermanUnderAGermanLocale() throws {
        let result = try german(["--help"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Aufruf: mailto-route [open] URL | COMMAND [OPTIONS]")
        for expected in ["Befehle:", "Rückgabewerte:", "  0   gesendet oder an das E-Mail-Programm übergeben",
                         "      Eine Nachricht aus einem Skript oder Programm senden (ohne Nachfrage).",
                         "  75  im Postausgang eingereiht, wird erneut versucht"] {
            #expect(lines.contains(expected), "\(expected) in:\n\(result.stdout)")
        }
        for english in ["Commands:", "Exit status:", "usage:", "Send a message from a script"] {
            #expect(!result.stdout.contains(english), "\(english) left in:\n\(result.stdout)")
        }
        // The words one types stay as they are.
        #expect(result.stdout.contains("  mailto-route send [URL] [--to A]..."))
    }

    /// A command's own help: its headings, its options' descriptions, in German, the
    /// option names and the usage line as typed, and within 80 columns still.
    @Test func aCommandsHelpIsGermanWithItsOptionsAsTyped() throws {
        let result = try german(["send", "--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Aufruf: mailto-route send [URL] [--to A]..."), "\(result.stdout)")
        for expected in ["Optionen:", "Argumente:", "  --to A", "einen Empfänger hinzufügen (wiederholbar)",
                         "  -h, --help", "diese Hilfe anzeigen und beenden"] {
            #expect(result.stdout.contains(expected), "\(expected) in:\n\(result.stdout)")
        }
    }

    /// German is longer than English: each command's help still fits 80 columns.
    @Test(arguments: CommandHelpTests.commands)
    func aCommandsGermanHelpFitsEightyColumns(command: String) throws {
        let result = try german(["help", command])
        #expect(result.status == 0 && result.stdout.contains("Optionen:"), "\(result)")
        for line in result.stdout.split(separator: "\n") { #expect(line.count <= 80, "\(line)") }
    }

    /// A usage error and a failure, each one German line, with the documented exit status.
    @Test func errorsAreGerman() throws {
        let usage = try german(["sedn"])
        #expect(usage.status == 64, "\(usage)")
        #expect(usage.stderr == """
            mailto-route: unbekannter Befehl »sedn«; war »send« gemeint?
            Aufruf: mailto-route [open] URL | COMMAND [OPTIONS]
            »mailto-route --help« liefert weitere Informationen.

            """, "\(usage.stderr)")
        let malformed = try german(["parse", "mailto:joe@example.com?subject=%zz"])
        #expect(malformed.status == 65, "\(malformed)")
        #expect(malformed.stderr.hasPrefix("mailto-route: fehlerhafte mailto:-URL an Position "), "\(malformed.stderr)")
        #expect(malformed.stderr.contains("ungültige Prozent-Kodierung »%zz« (auf ein % müssen zwei Hexadezimalziffern folgen)"),
                "\(malformed.stderr)")
        let drafts = try german(["drafts", "drop", "nosuchdraft"])
        #expect(drafts.status == 65, "\(drafts)")
        #expect(drafts.stderr == "mailto-route: kein Entwurf »nosuchdraft«\n", "\(drafts.stderr)")
    }

    /// `check`'s report is German section by section; its JSON is not.
    @Test func checkSpeaksGermanButItsJSONDoesNot() throws {
        let readable = try german(["check", "--offline"])
        let lines = readable.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Ergebnis", "\(readable)")
        for title in ["E-Mail-Programm", "Desktop-Dienst", "Konto", "Links", "Einstellungen", "Postausgang"] {
            #expect(lines.contains(title), "\(title) in:\n\(readable.stdout)")
        }
        #expect(lines.contains { $0.hasPrefix("  ein Klick ") }, "\(readable.stdout)")
        #expect(!lines.contains("Verdict") && !lines.contains("Outbox"), "\(readable.stdout)")
        let json = try jsonObject(try german(["check", "--offline", "--json"]).stdout)
        let verdict = try #require(json["verdict"] as? [String: Any])
        // The sandbox has no mail program and no account.
        #expect(verdict["sentence"] as? String == "nothing would open: no program handles mailto: links", "\(verdict)")
        #expect(lines.contains { $0.hasSuffix("nichts würde geöffnet: kein Programm ist für mailto:-Links zuständig") },
                "\(readable.stdout)")
    }

    /// The live test of an account whose server does not answer, and where its password
    /// comes from, in German words: not libcurl's English ("Failed to connect"), not the
    /// config's words ("none", "no TLS").
    @Test func checksLiveTestOfADownServerIsGerman() throws {
        let (port, descriptor) = try unlistenedPort()
        defer { close(descriptor) }
        try writeAccount(sandbox, port: port, security: "none")
        let readable = try german(["check"])
        let text = readable.stdout
        #expect(text.contains("keine Verbindung zu 127.0.0.1:\(port) möglich"), "\(text)")
        #expect(text.contains("nicht nötig (keine Anmeldung)"), "\(text)")
        #expect(text.contains("127.0.0.1:\(port), unverschlüsselt\n"), "\(text)")
        for english in ["Failed to connect", "Couldn't connect", ", none", "no TLS", "no login"] {
            #expect(!text.contains(english), "\(english) in:\n\(text)")
        }
    }

    /// A script that asked for JSON reads the words the documentation gives, in any locale.
    @Test func jsonStaysAsDocumentedUnderAGermanLocale() throws {
        let result = try german(["sedn", "--json"])
        #expect(result.status == 64)
        let error = try #require(try jsonObject(result.stdout)["error"] as? [String: Any])
        #expect(error["kind"] as? String == "usage")
        #expect(error["message"] as? String == "unknown command 'sedn'; did you mean 'send'?")
    }

    /// One message, several: the number picks the form (ngettext, the catalog's plural rule).
    @Test func theNumberPicksTheGermanForm() throws {
        let none = try german(["log", "--stats"])
        #expect(none.stdout == "0 Aufrufe protokolliert\n", "\(none)")
        _ = try german(["parse", "mailto:joe@example.com"])
        let cancelled = try german(["open", "mailto:joe@example.com"])
        #expect(cancelled.status != 0)
        let one = try german(["log", "--stats"])
        #expect(one.stdout.hasPrefix("1 Aufruf protokolliert\n"), "\(one)")
    }

    /// Every message of the template has a German translation, none fuzzy: msgfmt's own
    /// count, against the number of messages in the template.
    @Test func everyMessageOfTheTemplateHasAGermanTranslation() throws {
        let template = try run("/usr/bin/msgfmt", ["--statistics", "-o", "/dev/null",
                                                   packageRoot.appendingPathComponent("po/mailto-route.pot").path])
        let total = try #require(Int(template.stderr.split(separator: " ").last { Int($0) != nil } ?? ""), "\(template)")
        #expect(total > 800, "\(template.stderr)")
        let german = try run("/usr/bin/msgfmt", ["--check", "--statistics", "-o", "/dev/null",
                                                 packageRoot.appendingPathComponent("po/de.po").path])
        #expect(german.status == 0, "\(german)")
        #expect(german.stderr == "\(total) translated messages.\n", "\(german.stderr)")
    }

    /// The template holds every message the sources say now (tr, trn and trNoop calls, the
    /// .ui files), and the German catalog translates each: `scripts/update-po --check`,
    /// judged by gettext's msgcmp.
    @Test func theTemplateHoldsEveryMessageOfTheSources() throws {
        let result = try run(packageRoot.appendingPathComponent("scripts/update-po").path, ["--check"])
        #expect(result.status == 0, "run make update-po and translate what is new:\n\(result.stderr)")
    }
}
