import Foundation
import Testing
import TestSupport

/// `mailto-route parse`, run as the built binary.
@Suite struct ParseCommandTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test func jsonHasTheDocumentedShapeAndKeyOrder() throws {
        let result = try mailtoRoute(
            ["parse", "--json", "mailto:a@example.org?subject=Hi&body=line%201%0D%0Aline%202&In-Reply-To=%3Cx@y%3E&attach=/etc/passwd"],
            in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == #"""
            {"to": ["a@example.org"], "cc": [], "bcc": [], "subject": "Hi", "body": "line 1\r\nline 2", "isBodyHTML": false, "headers": {"in-reply-to": "<x@y>"}, "attachments": [], "dropped": [{"name": "attach", "reason": "attachments are never taken from a URL"}]}

            """#)
    }

    /// Python's json module is the independent judge of what we print.
    @Test func jsonIsValidForAnIndependentParser() throws {
        let url = "mailto:%22q%5C%22uote%22@x?subject=%00%1F%7F%E2%80%AE%F0%9F%99%82&body=%5C%22"
        let result = try mailtoRoute(["parse", "--json", url], in: sandbox)
        #expect(result.status == 0)
        let check = try run("/usr/bin/python3", ["-c", """
            import json, sys
            data = json.loads(sys.stdin.read())
            assert data["to"] == ['"q\\\\"uote"@x'], data["to"]
            assert data["subject"] == "\\u0000\\u001f\\u007f\\u202e\\U0001F642", ascii(data["subject"])
            assert data["body"] == '\\\\"', data["body"]
            assert data["subject"] is not None and data["cc"] == [] and data["isBodyHTML"] is False
            print("ok")
            """], stdin: Data(result.stdout.utf8))
        #expect(check.stdout == "ok\n", "\(check)")
    }

    @Test func readableOutputShowsEachField() throws {
        let result = try mailtoRoute(
            ["parse", "mailto:a@x,b@x?cc=c@x&subject=S&keywords=k&body=1%0A2&from=f@x"], in: sandbox)
        #expect(result.status == 0)
        #expect(result.stdout == """
            To:          a@x, b@x
            Cc:          c@x
            Subject:     S
            Keywords:    k
            Dropped:     from (originator and trace fields are never taken from a URL)
            Body:
              1
              2

            """)
    }

    @Test func malformedURLExits65WithOneLineNamingTheProblemAndOffset() throws {
        let result = try mailtoRoute(["parse", "mailto:a@x?subject=%G1"], in: sandbox)
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "mailto-route: malformed mailto: URL at offset 19: invalid percent-escape '%G1' (a % must be followed by two hex digits)\n")
    }

    @Test(arguments: [
        (["parse"], "mailto-route: missing URL"),
        (["parse", "--bogus", "mailto:a@x"], "mailto-route: unknown option '--bogus'"),
        (["parse", "mailto:a@x", "mailto:b@x"], "mailto-route: unexpected argument 'mailto:b@x'"),
        (["parse", "--json=yes", "mailto:a@x"], "mailto-route: option '--json' takes no value"),
        (["frobnicate"], "mailto-route: unknown command 'frobnicate'"),
        (["--frobnicate"], "mailto-route: unknown option '--frobnicate'"),
        ([], "mailto-route: no command given"),
    ])
    func usageErrorsExit64WithAUsageLine(arguments: [String], message: String) throws {
        let result = try mailtoRoute(arguments, in: sandbox)
        #expect(result.status == 64, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == message)
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix("usage: mailto-route "))
    }

    @Test func doubleDashEndsOptions() throws {
        let result = try mailtoRoute(["parse", "--json", "--", "mailto:--json@x"], in: sandbox)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix(#"{"to": ["--json@x"]"#))
    }
}

@Suite struct GlobalOptionTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    /// The versions printed are the ones the libraries report at run time; Debian's
    /// pkg-config files describe the same installed libraries.
    @Test func versionNamesItselfAndTheLibrariesItRunsWith() throws {
        let result = try mailtoRoute(["--version"], in: sandbox)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let glib = try run("/usr/bin/pkg-config", ["--modversion", "glib-2.0"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let curl = try run("/usr/bin/pkg-config", ["--modversion", "libcurl"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("mailto-route "))
        #expect(lines[1] == "GLib \(glib)")
        #expect(lines[2].hasPrefix("libcurl \(curl) ("))
    }

    @Test func helpListsEveryExitStatus() throws {
        let result = try mailtoRoute(["--help"], in: sandbox)
        #expect(result.status == 0)
        for status in ["0 ", "1 ", "3 ", "4 ", "64", "65", "75", "78"] {
            #expect(result.stdout.contains("\n  \(status)"), "exit status \(status)")
        }
        #expect(try mailtoRoute(["-h"], in: sandbox).stdout == result.stdout)
    }

    /// The handoff path must not pay for OpenSSL: libcurl is opened only to send.
    @Test func binaryDoesNotLinkLibcurl() throws {
        let result = try run("/usr/bin/ldd", [mailtoRouteBinary])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("libcurl"), "\(result.stdout)")
        #expect(result.stdout.contains("libglib-2.0"))
    }

    /// A direct send must not pay for GIO and GObject: they are opened only for a handoff,
    /// a registration, the session bus or the network monitor. GLib is linked.
    @Test func binaryDoesNotLinkGIO() throws {
        let result = try run("/usr/bin/ldd", [mailtoRouteBinary])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("libgio-2.0"), "\(result.stdout)")
        #expect(!result.stdout.contains("libgobject-2.0"), "\(result.stdout)")
        #expect(result.stdout.contains("libglib-2.0"))
    }
}

/// `--help` compared as a whole with its snapshot: a change to what users read is a
/// change someone made on purpose (update Tests/CLITests/Snapshots/help.txt with it).
@Suite struct HelpSnapshotTests {
    @Test func helpMatchesItsSnapshot() throws {
        let sandbox = try Sandbox()
        let snapshot = try String(
            contentsOf: packageRoot.appendingPathComponent("Tests/CLITests/Snapshots/help.txt"), encoding: .utf8)
        let result = try mailtoRoute(["--help"], in: sandbox)
        #expect(result.status == 0)
        #expect(result.stdout == snapshot)
    }
}
