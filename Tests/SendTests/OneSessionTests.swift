import Foundation
import Outbox
import Testing
import TestSupport

/// A run loads once: the config file opened once, the password obtained once,
/// one connection for the message and the quick flush after it, one rule for the paths.
@Suite struct OneSessionTests {
    /// `send` with three messages due in the outbox: the password command runs once and
    /// the server sees one connection that carries all four messages.
    @Test func thePasswordIsObtainedOnceAndOneConnectionCarriesTheMessageAndTheQuickFlush() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, auth: ("jane", "s3cret"))
        let runs = sandbox.root.appendingPathComponent("password-runs").path
        try writeAccount(sandbox, port: server.port, security: "none", user: "jane",
                         passwordCommand: "echo run >> '\(runs)'; echo s3cret")
        let queued = try enqueueMessages(sandboxOutbox(sandbox), 3)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--subject", "Now", "--body", "x"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let lines = try String(contentsOfFile: runs, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1, "the password command ran \(lines.count) times")
        #expect(server.connections == 1)
        #expect(server.messages.count == 4)
        #expect(Set(try server.receivedMessageIDs()).isSuperset(of: queued))
        #expect(try sandboxOutbox(sandbox).list().isEmpty)
    }

    /// A click (account and handler= configured, policy=handoff) opens the config file
    /// once, as `strace` sees it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
    func aClickOpensTheConfigFileOnce() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let config = try writeAccount(sandbox, port: 2525, security: "none")
        let text = try String(contentsOf: config, encoding: .utf8)
        try (text + "\n[route]\npolicy=handoff\nhandler=fakebird.desktop\n").write(to: config, atomically: true, encoding: .utf8)
        let trace = sandbox.root.appendingPathComponent("openat.trace").path
        let result = try run("/usr/bin/strace", ["-f", "-e", "trace=openat", "-o", trace, mailtoRouteBinary, "open", "mailto:joe@example.com"],
                             environment: sandbox.environment)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("fakebird") == ["mailto:joe@example.com"])
        let opened = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("\"\(config.path)\"") }
        #expect(opened.count == 1, "\(opened)")
    }

    /// With HOME unset, the config, the drafts, the outbox and the handoff files are all
    /// under the home the password database gives (GLib's rule, as GIO uses it). The
    /// database is nss_wrapper's, pointed at the sandbox: never the real user's home.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libnss_wrapper.so")))
    func withoutHOMEEveryFileIsUnderThePasswordDatabasesHome() throws {
        let sandbox = try Sandbox()
        let passwd = try sandbox.write("root:x:\(getuid()):\(getgid()):root:\(sandbox.home.path):/bin/sh\n", to: "etc/passwd")
        let group = try sandbox.write("root:x:\(getgid()):\n", to: "etc/group")
        var environment = sandbox.environment
        for name in ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"] { environment[name] = nil }
        environment["LD_PRELOAD"] = "/usr/lib/x86_64-linux-gnu/libnss_wrapper.so"
        environment["NSS_WRAPPER_PASSWD"] = passwd.path
        environment["NSS_WRAPPER_GROUP"] = group.path
        func mailtoRoute(_ arguments: [String]) throws -> RunResult {
            try run(mailtoRouteBinary, arguments, environment: environment, timeout: 30)
        }

        // The config: its account sends to a server that is down, so the message is queued.
        let down = try SMTPTestServer(.plain)
        let port = down.port
        down.stop()
        try writeAccount(sandbox, port: port, security: "none")
        let queued = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"])
        #expect(queued.status == 75, "\(queued)")
        #expect(try sandboxOutbox(sandbox).list().count == 1)

        // Drafts: a forced handoff with no mail program keeps the message as a draft.
        let kept = try mailtoRoute(["send", "--handoff", "--to", "joe@example.com", "--body", "x"])
        #expect(kept.status == 1, "\(kept)")
        #expect(sandbox.drafts.count == 1)

        // Handoff files: a long body goes to Thunderbird as a file in the state directory.
        try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
        try sandbox.setDefaultMailHandler("thunderbird.desktop")
        let body = try sandbox.write(String(repeating: "0123456789abcde\n", count: 5_000), to: "files/body.txt")
        let handedOff = try mailtoRoute(["send", "--handoff", "--to", "joe@example.com", "--body-file", body.path])
        #expect(handedOff.status == 0, "\(handedOff)")
        let argv = try #require(sandbox.recordedArgv("thunderbird"))
        let handoffDirectory = sandbox.stateHome.appendingPathComponent("mailto-route/handoff").path
        let fields = argv.last?.removingPercentEncoding ?? ""
        #expect(fields.contains("message=\(handoffDirectory)/"), "\(argv)")

        // What check reads is that same config file.
        let check = try mailtoRoute(["check", "--offline", "--json"])
        #expect(check.stdout.contains(sandbox.configHome.appendingPathComponent("mailto-route/config").path), "\(check)")
    }
}

