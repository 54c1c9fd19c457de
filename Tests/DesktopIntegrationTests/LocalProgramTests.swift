import Foundation
import Testing
import TestSupport

/// Files a local program attaches, the ways they really come: Debian's real
/// `/usr/bin/xdg-email --attach` (xdg-utils 1.1.3), which runs `xdg-email-hook.sh` first
/// in PATH, and LibreOffice's senddoc, which runs xdg-email; against a web page's
/// `attach=`, which a click brings through `open` and which never attaches a file.
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

    /// Rule 8 and the hostile subject: both files reach Thunderbird's `-compose`,
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

    /// LibreOffice's "Send document as e-mail" with E-mail program `/usr/bin/xdg-email`
    /// (or none): senddoc's `xdg` branch runs `xdg-email "mailto:?subject=…&attach=…"`
    /// with `file://` and the path escaped once by its uri-encode (which keeps
    /// `!$'()*+,-.:=@_~/`), so a space is `%20` and a `%` in the name `%25` (Debian's
    /// libreoffice-common 7.4.7, /usr/lib/libreoffice/program/senddoc). The document
    /// arrives as it is named.
    @Test func libreOfficeSendDocumentReachesTheMailProgram() throws {
        let (sandbox, _) = try sandbox()
        let document = try sandbox.write("odt", to: "lu1234.tmp/Budget 100%, final.odt").path
        let uriEncoded = "file://" + document
            .replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: " ", with: "%20")
        let result = try xdgEmail(["mailto:?subject=Budget%20100%25%2C%20final.odt&attach=\(uriEncoded)"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        let compose = try ThunderbirdCompose(reading: argv.last ?? "")
        #expect(compose.attachments == [document], "\(argv)")
        #expect(compose.fields["subject"] == "Budget 100%, final.odt")
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

    /// A web page's link comes through the desktop file's `open %u`: its attach= is
    /// named, never attached, and the mail program gets no file.
    @Test func webPageAttachThroughOpenAttachesNothing() throws {
        let (sandbox, files) = try sandbox()
        let result = try routeWithoutTerminal(["open", "mailto:joe@example.org?attach=\(files[0])"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("not taken from the URL: 'attach'"), "\(result)")
        #expect(sandbox.recordedArgv("thunderbird") == ["mailto:joe@example.org"])
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
        #expect(sandbox.recordedArgv("thunderbird", timeout: 0.5) == nil)
        #expect(sandbox.drafts.isEmpty)
    }

    /// A `file:` URI of another machine is no local file.
    @Test func fileURIOfAnotherHostIsAnError() throws {
        let (sandbox, _) = try sandbox()
        let result = try routeWithoutTerminal(
            ["open", "--local", "--json", "mailto:joe@example.org?attach=file%3A%2F%2Fexample.org%2Fetc%2Fpasswd"], in: sandbox)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.contains("\"kind\": \"input\""), "\(result)")
        #expect(sandbox.recordedArgv("thunderbird", timeout: 0.5) == nil)
    }
}
