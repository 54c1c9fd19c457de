import Foundation
import Testing
import TestSupport

/// Desktop entries whose `Exec=` runs another program than their id says, and programs
/// that fail as soon as they start: the client is the program `Exec=`
/// really runs; what cannot reach it is kept as a draft; a program that fails at once is
/// a failed handoff, never "handed off".
@Suite struct WrapperEntryTests {
    static let url = "mailto:a@example.org?subject=Hi"

    /// `id` as the default `mailto:` handler with `Exec=EXEC`, and a file to attach.
    func sandbox(_ id: String, exec: String, name: String = "Mail") throws -> (Sandbox, String) {
        let sandbox = try Sandbox()
        try sandbox.write("""
            [Desktop Entry]
            Type=Application
            Name=\(name)
            Exec=\(exec)
            MimeType=x-scheme-handler/mailto;

            """, to: "usr/share/applications/\(id)")
        #expect(try run("/usr/bin/update-desktop-database", [sandbox.systemApplications.path]).status == 0)
        try sandbox.setDefaultMailHandler(id)
        return (sandbox, try sandbox.write("report", to: "files/report.pdf").path)
    }

    func send(_ sandbox: Sandbox, attaching file: String) throws -> RunResult {
        try routeWithoutTerminal(["send", Self.url, "--handoff", "--attach", file, "--json"], in: sandbox)
    }

    func object(_ result: RunResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    /// The case of the issue: tmux got neomutt's `-a` (`tmux: unknown option -- a`) and
    /// the report said "handed off". tmux passes the words after its options on as argv.
    @Test func tmuxNewWindowWrapperGetsNeomuttsCommandLineThroughIt() throws {
        let (sandbox, file) = try sandbox("neomutt.desktop", exec: "tmux new-window -n mail neomutt %u", name: "NeoMutt")
        try sandbox.installRecorder("tmux")
        let result = try send(sandbox, attaching: file)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("tmux") == ["new-window", "-n", "mail", "neomutt", "-a", file, "--", Self.url])
        #expect(sandbox.drafts.isEmpty)
    }

    @Test func envWrapperKeepsItsVariablesAndRunsTheClient() throws {
        let (sandbox, file) = try sandbox("mail.desktop", exec: "env GDK_BACKEND=x11 MOZ_ENABLE_WAYLAND=0 thunderbird %u")
        let record = sandbox.recordsDirectory.path
        try sandbox.installScript("thunderbird", """
            printf '%s\\0' "$@" > '\(record)/thunderbird.tmp'
            printf '%s' "$GDK_BACKEND" > '\(record)/thunderbird.backend'
            mv '\(record)/thunderbird.tmp' '\(record)/thunderbird.argv'
            """)
        let result = try send(sandbox, attaching: file)
        #expect(result.status == 0, "\(result)")
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        #expect(argv.first == "-compose", "\(argv)")
        #expect(try ThunderbirdCompose(reading: argv.last ?? "").attachments == [file], "\(argv)")
        #expect(sandbox.contents(sandbox.recordsDirectory.appendingPathComponent("thunderbird.backend")) == "x11")
    }

    /// An entry called neomutt.desktop whose Exec runs a program mailto-route does not
    /// know: it gets the URL (what a URL carries), the report names the attachment as not
    /// carried, and the whole message is a draft.
    @Test func unknownWrapperGetsTheURLAndTheWholeMessageIsADraft() throws {
        let (sandbox, file) = try sandbox("neomutt.desktop", exec: "mailwrap neomutt %u", name: "NeoMutt")
        try sandbox.installRecorder("mailwrap")
        let result = try send(sandbox, attaching: file)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("mailwrap") == ["neomutt", Self.url])
        let report = try object(result)
        #expect(report["result"] as? String == "handedOff")
        let warnings = report["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.hasPrefix("attachment report.pdf not carried: NeoMutt runs mailwrap") }, "\(warnings)")
        let draft = try #require(report["draft"] as? String)
        #expect(sandbox.drafts.map(\.path) == [draft])
        #expect(try sandbox.header("Subject", of: URL(fileURLWithPath: draft)) == "Hi")
    }

    /// `sh -c`: words added after it would be shell text; the script gets only the URL,
    /// as its `$1`, which it passes on as one word.
    @Test func shellWrapperGetsNoCommandLine() throws {
        let (sandbox, file) = try sandbox("neomutt.desktop", exec: #"sh -c 'neomutt "$1"' sh %u"#, name: "NeoMutt")
        try sandbox.installRecorder("neomutt")
        let result = try send(sandbox, attaching: file)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("neomutt") == [Self.url])
        let warnings = try object(result)["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("through sh, which mailto-route adds no command line to") }, "\(warnings)")
        #expect(sandbox.drafts.count == 1)
    }

    // MARK: - Programs that fail at once

    @Test func launcherThatExitsOneAtOnceIsAFailedHandoffAndTheMessageADraft() throws {
        let (sandbox, _) = try sandbox("fakebird.desktop", exec: "fakebird %u", name: "Fake Bird")
        try sandbox.installScript("fakebird", "echo 'fakebird: cannot open display' >&2\nexit 1")
        let click = try routeWithoutTerminal(["open", Self.url], in: sandbox)
        #expect(click.status == 3, "\(click)")
        #expect(click.stderr.contains("not handed off: Fake Bird (fakebird.desktop) failed at once (exit status 1)"), "\(click)")
        #expect(sandbox.drafts.count == 1)
        // The log records the failed handoff, with its kind, before the
        // draft it became.
        let log = try routeWithoutTerminal(["log", "--json"], in: sandbox)
        let lines = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log)")
        #expect(lines.map { "\($0["path"] ?? "")/\($0["result"] ?? "")" } == ["handoff/failed", "draft/saved"], "\(lines)")
        #expect(lines.first?["handler"] as? String == "fakebird.desktop")
        #expect(lines.first?["errorKind"] as? String == "permanent")

        let forced = try routeWithoutTerminal(["send", Self.url, "--handoff", "--json"], in: sandbox)
        #expect(forced.status == 1, "\(forced)")
        let report = try object(forced)
        #expect(report["result"] as? String == "failed")
        let error = try #require(report["error"] as? [String: Any], "\(report)")
        #expect((error["message"] as? String)?.contains("Fake Bird (fakebird.desktop) failed at once (exit status 1)") == true, "\(error)")
        #expect(error["kind"] as? String == "permanent")
        #expect(report["draft"] is String)
        #expect(sandbox.drafts.count == 2)
    }

    @Test func clientCommandLineThatFailsAtOnceIsAFailedHandoff() throws {
        let (sandbox, file) = try sandbox("thunderbird.desktop", exec: "thunderbird %u", name: "Thunderbird")
        try sandbox.installScript("thunderbird", "exit 2")
        let result = try send(sandbox, attaching: file)
        #expect(result.status == 1, "\(result)")
        #expect(try object(result)["result"] as? String == "failed")
        #expect(sandbox.drafts.count == 1)
    }

    /// Like Thunderbird's launcher when Thunderbird runs already (or a program that
    /// daemonises): it exits 0 at once, and the handoff ends then, not after the watch, nor
    /// when the process it left behind ends (here it waits at a gate the test holds until
    /// the run is over). How long the click's command takes is `scripts/bench handoff`'s
    /// figure (its recording handler exits 0 at once too).
    @Test func launcherThatDaemonisesAndExitsZeroIsNotDelayed() throws {
        let (sandbox, _) = try sandbox("fakebird.desktop", exec: "fakebird %u", name: "Fake Bird")
        let record = sandbox.recordsDirectory.path
        let gate = try Gate(at: sandbox.root.appendingPathComponent("gate"))
        try sandbox.installScript("fakebird", """
            flock -s '\(gate.path)' true </dev/null >/dev/null 2>&1 &
            printf '%s\\0' "$@" > '\(record)/fakebird.argv'
            exit 0
            """)
        let result = try routeWithoutTerminal(["open", Self.url], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "handed off to Fake Bird (fakebird.desktop)\n")
        #expect(sandbox.recordedArgv("fakebird") == [Self.url])
        gate.release()
    }

    /// A program that keeps running (the mail program itself) has the message: handed off,
    /// once the watch is over. It runs until the test releases a gate, after the run: the
    /// report came while it ran, at the end of the watch, which it did not cut short (the
    /// run took the watch's 2 s at least, measured from before it started).
    @Test func programStillRunningAfterTheWatchIsHandedOff() throws {
        let (sandbox, _) = try sandbox("fakebird.desktop", exec: "fakebird %u", name: "Fake Bird")
        let record = sandbox.recordsDirectory.path
        let gate = try Gate(at: sandbox.root.appendingPathComponent("gate"))
        try sandbox.installScript("fakebird", """
            printf '%s\\0' "$@" > '\(record)/fakebird.argv'
            exec flock -s '\(gate.path)' true </dev/null >/dev/null 2>&1
            """)
        let start = Date()
        let result = try routeWithoutTerminal(["open", Self.url], in: sandbox)
        let seconds = Date().timeIntervalSince(start)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "handed off to Fake Bird (fakebird.desktop)\n")
        #expect(seconds >= 2, "\(seconds)")
        gate.release()
    }
}
