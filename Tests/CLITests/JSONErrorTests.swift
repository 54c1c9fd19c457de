import Foundation
import Outbox
import Testing
import TestSupport

/// With `--json`, an error of any command is one JSON object on standard output,
/// `{"error": {"kind", "message"}}`, with the exit status it has without `--json`. Python's
/// json module is the judge of what is printed.
@Suite struct JSONErrorTests {
    /// The `error` member of the one object `stdout` holds, read by Python's json module.
    func error(in stdout: String) throws -> (kind: String, message: String) {
        let check = try run("/usr/bin/python3", ["-c", """
            import json, sys
            text = sys.stdin.read()
            assert text.endswith("\\n") and text.count("\\n") == 1, repr(text)
            data = json.loads(text)
            assert list(data) == ["error"], data
            assert sorted(data["error"]) == ["kind", "message"], data
            print(data["error"]["kind"])
            print(data["error"]["message"])
            """], stdin: Data(stdout.utf8))
        let lines = check.stdout.dropLast().split(separator: "\n", maxSplits: 1).map(String.init)
        guard check.status == 0, lines.count == 2 else { throw TestServerError(message: "not an error object: \(check)") }
        return (lines[0], lines[1])
    }

    @Test(arguments: [
        // A malformed URL: input, 65.
        (["parse", "--json", "mailto:a@x?subject=%G1"], "input", 65, "malformed mailto: URL at offset 19"),
        // Usage errors: 64.
        (["parse", "--json"], "usage", 64, "missing URL"),
        (["log", "--json", "--count", "0"], "usage", 64, "--count needs a positive number"),
        (["send", "--json", "--subject", "Hi"], "usage", 64, "no recipient"),
        (["drafts", "send", "--json"], "usage", 64, "drafts send needs a draft ID"),
        (["outbox", "--json", "--frobnicate"], "usage", 64, "unknown option '--frobnicate'"),
        (["frobnicate", "--json"], "usage", 64, "unknown command 'frobnicate'"),
        // Unknown IDs: input, 65.
        (["outbox", "show", "20261129-134512-123456-3f9a1c2b", "--json"], "input", 65, "20261129-134512-123456-3f9a1c2b"),
        (["drafts", "drop", "20261129-134512-123456-3f9a1c2b", "--json"], "input", 65, "20261129-134512-123456-3f9a1c2b"),
    ])
    func errorsAreOneJSONObjectWithTheSameStatus(arguments: [String], kind: String, status: Int32, message: String) throws {
        let sandbox = try Sandbox()
        let result = try mailtoRoute(arguments, in: sandbox)
        #expect(result.status == status, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let error = try error(in: result.stdout)
        #expect(error.kind == kind)
        #expect(error.message.contains(message), "\(error.message)")
        // Without --json: the same status, the same message, as text on standard error.
        let text = try mailtoRoute(arguments.filter { $0 != "--json" }, in: sandbox)
        #expect(text.status == status)
        #expect(text.stdout.isEmpty)
        #expect(text.stderr.hasPrefix("mailto-route: \(error.message)\n"), "\(text)")
    }

    /// A configuration error (78): a flush with an account file that does not read.
    @Test func aConfigurationErrorIsOneObjectOfKindConfiguration() throws {
        let sandbox = try Sandbox()
        try outbox(in: sandbox).enqueue(message("Lunch?"))
        try sandbox.write("[account]\nfrom=jane@example.org\n", to: "home/.config/mailto-route/config", mode: 0o600)
        let result = try mailtoRoute(["outbox", "flush", "--json"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let error = try error(in: result.stdout)
        #expect(error.kind == "configuration")
        #expect(error.message.contains("needs host="), "\(error.message)")
    }
}
