import Foundation
import Testing
import TestSupport

/// Attachments and long bodies, carried on each mail client's own command line, read
/// back from the argv of a real launch.
@Suite struct ClientCommandLineTests {
    /// A sandbox with `program` installed as the default `mailto:` handler, and two files
    /// to attach (one with a comma and a quote in its name).
    func sandbox(
        _ id: String, program: String, extraLines: [String] = [], absoluteExec: Bool = true, exec: String = "%u"
    ) throws -> (Sandbox, [String]) {
        let sandbox = try Sandbox()
        try sandbox.installHandler(id, name: program, program: program, exec: exec,
                                   extraLines: extraLines, absoluteExec: absoluteExec)
        try sandbox.setDefaultMailHandler(id)
        let first = try sandbox.write("report", to: "files/report.pdf").path
        let second = try sandbox.write("x", to: "files/a,b'c\".txt").path
        return (sandbox, [first, second])
    }

    /// `send URL --attach FILE... --handoff`: the message the mail program is to get, on
    /// the Router's handoff path; what it could not carry is said on standard error.
    func probe(_ url: String, attaching files: [String], in sandbox: Sandbox, _ extra: [String] = []) throws -> RunResult {
        try sendHandoff([url] + files.flatMap { ["--attach", $0] } + extra, in: sandbox)
    }

    /// A path with every byte but unreserved ones and `/` percent-encoded.
    func strictlyEscaped(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "/-._~")
            .union(CharacterSet(charactersIn: "a"..."z")).union(CharacterSet(charactersIn: "A"..."Z"))
            .union(CharacterSet(charactersIn: "0"..."9"))) ?? path
    }

    static let hostileURL = "mailto:a@example.org?cc=c@example.org&subject=x',attachment='file:///etc/passwd',to='evil@example.org&body=Hi,%20it's%20%22me%22"

    /// Rule 4: what Thunderbird reads (its GetArgs and ComposeStartup, re-implemented in
    /// Python from its source) is exactly the message: a subject written to close a quote
    /// and add a field adds nothing, and both files (one with a comma and quotes in its
    /// name) arrive, in today's Thunderbird and in the ones that split on every comma.
    @Test func thunderbirdGetsComposeWithEveryValueEscaped() throws {
        let (sandbox, files) = try sandbox("thunderbird.desktop", program: "thunderbird")
        let result = try probe(Self.hostileURL, attaching: files, in: sandbox)
        #expect(result.stdout.hasPrefix("handed off to thunderbird (thunderbird.desktop)"), "\(result)")
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        #expect(argv.count == 2 && argv.first == "-compose")
        let word = argv.last ?? ""
        // No quote at all: Thunderbird opens one only right after `=`.
        #expect(!word.contains("'") && !word.contains("\""), "\(word)")
        let compose = try ThunderbirdCompose(reading: word)
        #expect(compose.fields == [
            "to": "a@example.org",
            "cc": "c@example.org",
            "subject": "x',attachment='file:///etc/passwd',to='evil@example.org",
            "body": "Hi, it's \"me\"",
            "attachment": "file://\(files[0]),file://\(strictlyEscaped(files[1]))",
        ])
        #expect(compose.attachments == files)
        #expect(compose.attachmentsBefore900117 == files)
    }

    /// The subject of the issue: `x',attachment='file:///etc/passwd` attaches nothing
    /// beside the one file the caller attached.
    @Test func hostileSubjectAttachesNothingInThunderbird() throws {
        let (sandbox, files) = try sandbox("thunderbird.desktop", program: "thunderbird")
        let hostile = "x',attachment='file:///etc/passwd"
        let url = "mailto:a@example.org?subject=x'%2Cattachment='file:///etc/passwd"
        let result = try probe(url, attaching: [files[0]], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let compose = try ThunderbirdCompose(reading: try #require(sandbox.recordedArgv("thunderbird")).last ?? "")
        #expect(compose.fields["subject"] == hostile)
        #expect(compose.attachments == [files[0]] && compose.attachmentsBefore900117 == [files[0]])
        // The judge does see the attack in the word that used to be built.
        let quoted = try ThunderbirdCompose(reading: "to=a%40example.org,subject=\(hostile)'")
        #expect(quoted.attachments == ["/etc/passwd"])
    }

    @Test func headersThunderbirdCannotTakeAreReported() throws {
        let (sandbox, files) = try sandbox("thunderbird.desktop", program: "thunderbird")
        let result = try probe("mailto:a@example.org?In-Reply-To=%3Cx@y%3E", attaching: [files[0]], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("header in-reply-to not carried"))
        #expect(sandbox.recordedArgv("thunderbird")?.first == "-compose")
    }

    func flatpakThunderbird() throws -> (Sandbox, [String]) {
        try sandbox(
            "org.mozilla.Thunderbird.desktop", program: "flatpak",
            extraLines: ["X-Flatpak=org.mozilla.Thunderbird"], absoluteExec: false,
            exec: "run --branch=stable --arch=x86_64 --command=thunderbird --file-forwarding org.mozilla.Thunderbird @@u %u @@")
    }

    @Test func flatpakThunderbirdIsRunByItsAppIDAndWithoutTheDocumentsPortalGetsNoAttachmentItCouldNotOpen() throws {
        let (sandbox, files) = try flatpakThunderbird()
        // No session bus, so no Documents portal: a host path means nothing inside the sandbox.
        let result = try probe("mailto:a@example.org", attaching: [files[0]], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("flatpak"))
        #expect(Array(argv.prefix(3)) == ["run", "org.mozilla.Thunderbird", "-compose"])
        #expect(try ThunderbirdCompose(reading: argv.last ?? "").attachments.isEmpty)
        #expect(result.stderr.contains("attachment report.pdf not carried"), "\(result)")
        #expect(result.stderr.contains("runs in Flatpak (org.mozilla.Thunderbird), and the Documents portal"), "\(result)")
    }

    @Test func aSendToFlatpakThunderbirdWithoutTheDocumentsPortalKeepsTheWholeMessageAsADraft() throws {
        let (sandbox, files) = try flatpakThunderbird()
        let result = try route(["send", "--to", "a@example.org", "--subject", "Report", "--attach", files[0], "--handoff"],
                               in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("handed off to flatpak (org.mozilla.Thunderbird.desktop)"), "\(result)")
        #expect(result.stderr.contains("attachment report.pdf not carried: flatpak runs in Flatpak"), "\(result)")
        let argv = try #require(sandbox.recordedArgv("flatpak"))
        #expect(try ThunderbirdCompose(reading: argv.last ?? "").attachments.isEmpty)
        // Rule 2: what did not go is kept, attachment and all.
        let draft = try #require(sandbox.drafts.first)
        let message = try String(contentsOf: draft, encoding: .utf8)
        #expect(message.contains("report.pdf"), "\(message)")
        #expect(result.stderr.contains("is saved as \(draft.path)"), "\(result)")
    }

    @Test func flatpakThunderbirdGetsItsAttachmentsExportedThroughTheDocumentsPortal() throws {
        let (sandbox, files) = try flatpakThunderbird()
        let bus = try PrivateSessionBus()
        let mount = sandbox.runtimeDir.appendingPathComponent("doc").path
        let record = sandbox.root.appendingPathComponent("documents.jsonl").path
        let ready = sandbox.root.appendingPathComponent("documents-ready").path
        let portal = try ServerProcess(
            ["/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/documents-portal.py").path,
             "--ready", ready, "--record", record, "--mount", mount],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { portal.stop() }
        try portal.waitForReady(ready, name: "documents-portal.py")

        let result = try sendHandoff(["mailto:a@example.org"] + files.flatMap { ["--attach", $0] }, in: sandbox,
                                      ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("not carried"), "\(result)")
        let argv = try #require(sandbox.recordedArgv("flatpak"))
        #expect(Array(argv.prefix(3)) == ["run", "org.mozilla.Thunderbird", "-compose"])
        // Each attachment is a file under the portal's mount point, holding the original's bytes.
        // As Thunderbird reads its -compose argument (ThunderbirdJudge): the files it attaches.
        let paths = try ThunderbirdCompose(reading: argv.last ?? "").attachments
        #expect(paths.count == 2, "\(argv)")
        for (exported, original) in zip(paths, files) {
            #expect(exported.hasPrefix(mount + "/"), "\(exported)")
            #expect(exported.hasSuffix("/" + (original as NSString).lastPathComponent))
            #expect(FileManager.default.contents(atPath: exported) == FileManager.default.contents(atPath: original))
        }
        // Called as GLib calls it for an X-Flatpak program: the mount point, then one AddFull
        // with a descriptor of each file, AS_NEEDED_BY_APP, the app id, and read permission.
        let calls = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(calls.map { $0["method"] as? String } == ["GetMountPoint", "AddFull"])
        let add = try #require(calls.last)
        #expect(add["paths"] as? [String] == files.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path })
        #expect(add["flags"] as? Int == 4)
        #expect(add["app_id"] as? String == "org.mozilla.Thunderbird")
        #expect(add["permissions"] as? [String] == ["read"])
    }

    @Test func evolutionGetsAttachInTheURL() throws {
        let (sandbox, files) = try sandbox("org.gnome.Evolution.desktop", program: "evolution")
        let result = try probe("mailto:a@example.org?subject=Hi", attaching: files, in: sandbox)
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("evolution"))
        #expect(argv.count == 1)
        let items = URLComponents(string: argv[0])?.queryItems ?? []
        #expect(items.map(\.name) == ["subject", "attach", "attach"])
        #expect(items.dropFirst().map(\.value) == files.map { "file://" + strictlyEscaped($0) })
    }

    @Test func kmailGetsItsOptionsAndTheRecipientsAfterDoubleDash() throws {
        let (sandbox, files) = try sandbox("org.kde.kmail2.desktop", program: "kmail")
        let result = try probe("mailto:-x@example.org?cc=c@example.org&subject=--help&body=b", attaching: [files[0]], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("kmail") == [
            "--composer", "--subject", "--help", "--cc", "c@example.org", "--body", "b",
            "--attach", "file://\(files[0])", "--", "-x@example.org",
        ])
    }

    /// Rule 8: KMail takes every word after its options that reads as a URL for a file to
    /// attach (and a `mailto:` one's attach= too), so a link's "recipients" such as
    /// `file:///etc/shadow` never reach it: a clicked link (a body too long for a URL puts
    /// it on KMail's command line) hands off the rest and names them, and the draft kept
    /// beside says what it could not hold. Rule 4: the body's line breaks go in a file,
    /// not in an argv word.
    @Test func kmailIsGivenNoRecipientItWouldAttachAsAFile() throws {
        let (sandbox, _) = try sandbox("org.kde.kmail2.desktop", program: "kmail")
        try sandbox.write("[route]\npolicy=handoff\n", to: "home/.config/mailto-route/config")
        let body = "First line\r\n" + String(repeating: "a", count: 70_000)
        let url = "mailto:?to=file:///etc/shadow,mailto:x@example.org%3Fattach%3D/etc/passwd,joe@example.org&subject=Hi&body="
            + body.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let result = try run("/usr/bin/setsid", ["-w", mailtoRouteBinary, "open", url, "--json"],
                             environment: sandbox.environment(), timeout: 30)
        let argv = try #require(sandbox.recordedArgv("kmail"), "\(result)")
        let recipients = Array(argv.drop { $0 != "--" }.dropFirst())
        #expect(recipients == ["joe@example.org"], "\(argv.map { $0.prefix(80) })")
        #expect(!argv.contains { $0.contains("/etc/shadow") || $0.contains("/etc/passwd") })
        #expect(!argv.contains { $0.contains("\r") || $0.contains("\n") }, "no line break in an argv word")
        let bodyFile = try #require(argv.firstIndex(of: "--msg").map { argv[$0 + 1] }, "\(argv.map { $0.prefix(80) })")
        #expect(try String(contentsOfFile: bodyFile, encoding: .utf8).hasPrefix("First line"))
        let report = try jsonObject(result.stdout)
        let warnings = (report["warnings"] as? [String] ?? []).joined(separator: "\n")
        #expect(warnings.contains("recipient file:///etc/shadow not carried: kmail would take it for a file to attach"), "\(report)")
        #expect(warnings.contains("recipient mailto:x@example.org?attach=/etc/passwd not carried"), "\(report)")
        // The draft holds what an address can be; what is not one is said there too.
        let draft = try #require(sandbox.drafts.first, "\(result)")
        #expect(try sandbox.header("To", of: draft) == "joe@example.org")
        #expect(warnings.contains("To 'file:///etc/shadow' left out of the draft"), "\(report)")
    }

    /// Rule 4: a body of several lines reaches KMail in a file (`--msg`), never as an argv
    /// word holding its CR and LF (`--body` carries one line only).
    @Test func kmailGetsABodyOfSeveralLinesInAFile() throws {
        let (sandbox, files) = try sandbox("org.kde.kmail2.desktop", program: "kmail")
        let result = try probe("mailto:a@example.org?body=l1%0D%0AX-Injected:%20yes", attaching: [files[0]], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("kmail"))
        #expect(!argv.contains("--body") && !argv.contains { $0.contains("\n") || $0.contains("\r") }, "\(argv)")
        let bodyFile = try #require(argv.firstIndex(of: "--msg").map { argv[$0 + 1] }, "\(argv)")
        #expect(try String(contentsOfFile: bodyFile, encoding: .utf8) == "l1\r\nX-Injected: yes")
    }

    /// Rule 4: a NUL from a link never reaches an argv, where it would silently cut the
    /// value short; it is shown as U+FFFD and said.
    @Test func nulInALinkNeverCutsACommandLineValue() throws {
        let (sandbox, files) = try sandbox("org.kde.kmail2.desktop", program: "kmail")
        let result = try probe("mailto:a@example.org?subject=Hello%00TAIL", attaching: [files[0]], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("kmail")?.contains("Hello\u{FFFD}TAIL") == true)
        #expect(result.stderr.contains("NUL in subject"))
    }

    @Test(arguments: [("claws-mail.desktop", "claws-mail"), ("sylpheed.desktop", "sylpheed")])
    func clawsMailAndSylpheedGetComposeAndAttach(id: String, program: String) throws {
        let (sandbox, files) = try sandbox(id, program: program)
        let result = try probe("mailto:a@example.org?subject=Hi", attaching: files, in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv(program) == ["--compose", "mailto:a@example.org?subject=Hi", "--attach"] + files)
    }

    @Test func balsaGetsComposeAndOneAttachPerFile() throws {
        let (sandbox, files) = try sandbox("org.desktop.Balsa.desktop", program: "balsa")
        let result = try probe("mailto:a@example.org", attaching: files, in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("balsa") == ["--compose=mailto:a@example.org"] + files.map { "--attach=\($0)" })
    }

    @Test(arguments: ["mutt", "neomutt"])
    func muttRunsInATerminalWithAttachments(program: String) throws {
        let (sandbox, files) = try sandbox("\(program).desktop", program: program, extraLines: ["Terminal=true"])
        try sandbox.installRecorder("x-terminal-emulator")
        let result = try probe("mailto:a@example.org?subject=Hi", attaching: files, in: sandbox)
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("x-terminal-emulator"))
        #expect(argv.first == "-e")
        #expect(Array(argv.dropFirst(2)) == ["-a"] + files + ["--", "mailto:a@example.org?subject=Hi"])
        #expect(argv.dropFirst().first?.hasSuffix("/\(program)") == true)
    }

    @Test func otherProgramGetsTheURLAndTheReportNamesTheAttachments() throws {
        let (sandbox, files) = try sandbox("fakebird.desktop", program: "fakebird")
        let result = try probe("mailto:a@example.org", attaching: files, in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("fakebird") == ["mailto:a@example.org"])
        #expect(result.stderr.contains("attachment report.pdf not carried"))
        #expect(result.stderr.contains("attachment a,b'c\".txt not carried"))
    }

    /// 85,000 bytes: more than a URL carries.
    static let longBody = String(repeating: "0123456789abcde\r\n", count: 5_000)

    /// Hands off `body` (by default `longBody`) to `program`, installed as `id`.
    func probeLongBody(_ id: String, program: String, body: String = longBody) throws -> (Sandbox, RunResult) {
        let (sandbox, _) = try sandbox(id, program: program)
        let bodyFile = try sandbox.write(body, to: "files/body.txt").path
        return (sandbox, try probe("mailto:a@example.org", attaching: [], in: sandbox, ["--body-file", bodyFile]))
    }

    @Test func longBodyGoesToThunderbirdWholeAsAFile() throws {
        let (sandbox, result) = try probeLongBody("thunderbird.desktop", program: "thunderbird")
        let body = Self.longBody
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("not carried"))
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        // A plain path: Thunderbird opens it with nsIFile.initWithPath.
        let fields = try ThunderbirdCompose(reading: argv.last ?? "").fields
        let path = try #require(fields["message"])
        #expect(path.hasPrefix("/"))
        #expect(FileManager.default.contents(atPath: path) == Data(body.utf8))
        #expect(fields["body"] == nil)
    }

    /// Files handed to a mail program stay while it may read them; a week-old handoff
    /// directory goes at the next handoff that writes files, a fresh one stays.
    @Test func weekOldHandoffFilesAreRemovedAtTheNextHandoff() throws {
        let (sandbox, _) = try sandbox("thunderbird.desktop", program: "thunderbird")
        let handoff = sandbox.stateHome.appendingPathComponent("mailto-route/handoff")
        let old = try sandbox.write("old body", to: "home/.local/state/mailto-route/handoff/oldrun/body.txt")
        let recent = try sandbox.write("recent body", to: "home/.local/state/mailto-route/handoff/recentrun/body.txt")
        let eightDaysAgo = Date().addingTimeInterval(-8 * 24 * 3600)
        try FileManager.default.setAttributes([.modificationDate: eightDaysAgo], ofItemAtPath: old.deletingLastPathComponent().path)
        let bodyFile = try sandbox.write(Self.longBody, to: "files/body.txt").path
        let result = try probe("mailto:a@example.org", attaching: [], in: sandbox, ["--body-file", bodyFile])
        #expect(result.status == 0, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: old.deletingLastPathComponent().path))
        #expect(FileManager.default.fileExists(atPath: recent.path))
        let remaining = try FileManager.default.contentsOfDirectory(atPath: handoff.path)
        #expect(remaining.count == 2, "\(remaining)")
    }

    /// The handoff files follow the one rule for paths: a relative XDG_STATE_HOME is
    /// ignored, as the XDG spec says, so the mail program gets a full path that does not
    /// depend on the directory either program runs in.
    @Test func aRelativeXDGStateHomeIsIgnoredForTheHandoffFiles() throws {
        let (sandbox, _) = try sandbox("thunderbird.desktop", program: "thunderbird")
        let bodyFile = try sandbox.write(Self.longBody, to: "files/body.txt").path
        let result = try sendHandoff(["mailto:a@example.org", "--body-file", bodyFile], in: sandbox,
                                     ["XDG_STATE_HOME": "relative/state"])
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        let path = try #require(try ThunderbirdCompose(reading: argv.last ?? "").fields["message"])
        #expect(path.hasPrefix(sandbox.stateHome.appendingPathComponent("mailto-route/handoff/").path), "\(path)")
        #expect(FileManager.default.contents(atPath: path) == Data(Self.longBody.utf8))
    }

    @Test func longBodyToOtherProgramIsCutAtALineAndReported() throws {
        let (sandbox, result) = try probeLongBody("fakebird.desktop", program: "fakebird")
        let body = Self.longBody
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("warning: body is 85000 bytes"), "\(result)")
        #expect(result.stderr.contains("bytes were not carried"))
        let argv = try #require(sandbox.recordedArgv("fakebird"))
        let carried = URLComponents(string: argv[0])?.queryItems?.first { $0.name == "body" }?.value ?? ""
        #expect(carried.utf8.count <= 64 * 1024 && carried.hasSuffix("abcde\r\n") && body.hasPrefix(carried))
    }

    /// 60,000 bytes of Cyrillic: within 64 KiB, but 180,000 bytes once percent-encoded,
    /// more than Linux lets one argv word hold (128 KiB).
    static let cyrillicBody = String(repeating: "жжжжжжжжжжжжжжж\r\n", count: 1_875)

    @Test func bodyTooLongOnceEncodedIsCutToFitTheArgv() throws {
        let (sandbox, result) = try probeLongBody("fakebird.desktop", program: "fakebird", body: Self.cyrillicBody)
        let body = Self.cyrillicBody
        #expect(body.utf8.count == 60_000 && body.utf8.count <= 64 * 1024)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("warning: body is 60000 bytes"), "\(result)")
        let argv = try #require(sandbox.recordedArgv("fakebird"))
        #expect(argv[0].utf8.count < 128 * 1024)
        let carried = URLComponents(string: argv[0])?.queryItems?.first { $0.name == "body" }?.value ?? ""
        #expect(carried.utf8.count > 40_000 && carried.hasSuffix("ж\r\n") && body.hasPrefix(carried))
    }

    @Test func bodyTooLongOnceEncodedGoesToThunderbirdAsAFile() throws {
        let (sandbox, result) = try probeLongBody("thunderbird.desktop", program: "thunderbird", body: Self.cyrillicBody)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("not carried"))
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        let path = try #require(try ThunderbirdCompose(reading: argv.last ?? "").fields["message"])
        #expect(FileManager.default.contents(atPath: path) == Data(Self.cyrillicBody.utf8))
    }

    /// A NUL goes on a command line as U+FFFD, three times its size: the body is
    /// measured that way, so the program still starts (here cut to fit, and said).
    @Test func bodyOfNULsIsMeasuredAsItIsPassed() throws {
        let (sandbox, files) = try sandbox("claws-mail.desktop", program: "claws-mail")
        let body = String(repeating: "\u{0}", count: 40_000) + "\r\nend\r\n"
        let bodyFile = try sandbox.write(body, to: "files/body.txt").path
        let result = try probe("mailto:a@example.org", attaching: [files[0]], in: sandbox, ["--body-file", bodyFile])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("NUL in body shown as U+FFFD"), "\(result)")
        #expect(result.stderr.contains("warning: body is 40007 bytes"), "\(result)")
        let argv = try #require(sandbox.recordedArgv("claws-mail"))
        #expect(argv.allSatisfy { $0.utf8.count < 128 * 1024 })
    }
}
