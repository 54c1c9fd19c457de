import Foundation
import Outbox
import Testing
import TestSupport

/// Whether this process may make a network namespace (`unshare -n`: root or CAP_SYS_ADMIN).
private func canUnshareNetwork() -> Bool {
    (try? run("/usr/bin/unshare", ["-n", "/bin/true"]).status) == 0
}

private let systemdAnalyze = "/usr/bin/systemd-analyze"

@Suite struct OutboxWatchTests {
    @Test func watchSendsWhatIsDueAtStartAndEndsCleanlyOnSIGTERM() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let ids = try enqueueMessages(sandboxOutbox(sandbox), 2)
        let watch = try startMailtoRoute(["outbox", "watch"], in: sandbox)
        try waitUntil("the server has both messages") { server.messages.count >= 2 }
        #expect(watch.isRunning, "watch should stay running")
        #expect(watch.terminate() == 0)
        // Each once: counted once the sender has ended.
        #expect(try server.receivedMessageIDs() == ids)
        #expect(try sandboxOutbox(sandbox).list().isEmpty)
    }

    @Test func watchWithTheServerDownKeepsTheMessageAndStopsOnSIGINT() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        server.stop()
        try writeAccount(sandbox, port: server.port, security: "none")
        let box = sandboxOutbox(sandbox)
        try enqueueMessages(box, 1)
        let watch = try startMailtoRoute(["outbox", "watch"], in: sandbox)
        try waitUntil("the watch recorded its first attempt") { (try box.list().first?.attempts ?? 0) > 0 }
        #expect(watch.isRunning)
        kill(watch.pid, SIGINT)
        #expect(watch.wait(timeout: patience) == 0)
        // One attempt in all: counted once the watch has ended.
        #expect(try box.list().first?.attempts == 1)
        #expect(try box.list().count == 1)
    }

    /// The network coming back (GNetworkMonitor's `network-changed`) sends what waits,
    /// without waiting for its back-off. Run in a network namespace of its own (`unshare
    /// -n`): there, adding a default route is a real network change, seen through netlink.
    @Test(.enabled(if: canUnshareNetwork(), "unshare -n is not allowed here (needs root or CAP_SYS_ADMIN)"))
    func watchSendsEverythingQueuedWhenTheNetworkComesBack() throws {
        let sandbox = try Sandbox()
        let port = 2525
        try writeAccount(sandbox, port: port, security: "none")
        let box = sandboxOutbox(sandbox)
        let ids = try enqueueMessages(box, 2)
        let received = sandbox.root.appendingPathComponent("received")
        try FileManager.default.createDirectory(at: received, withIntermediateDirectories: true)
        let log = sandbox.root.appendingPathComponent("watch.log").path
        // The server is down at start (the first flush reschedules both messages a minute
        // later), comes up, then the default route appears.
        let script = """
            set -u
            ip link set lo up
            '\(mailtoRouteBinary)' outbox watch >'\(log)' 2>&1 &
            watch=$!
            for i in $(seq 200); do grep -q '"attempts": 1' '\(box.directory)'/*/meta.json 2>/dev/null && break; sleep 0.05; done
            sleep 0.3
            set -- $(/usr/bin/python3 '\(resourcePath("smtp_server.py"))' --outdir '\(received.path)' --port \(port) --lifetime 60)
            server=$2
            ip route add default dev lo
            for i in $(seq 200); do [ -e '\(received.path)/2.eml' ] && break; sleep 0.05; done
            kill -TERM $watch
            wait $watch
            echo "watch exit $?"
            kill $server
            """
        let result = try run("/usr/bin/unshare", ["-n", "/bin/sh", "-c", script], environment: sandbox.environment, timeout: 60)
        let watchLog = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(result.stdout.contains("watch exit 0"), "\(result)\n--- watch\n\(watchLog)")
        #expect(FileManager.default.fileExists(atPath: received.appendingPathComponent("2.eml").path), "\(watchLog)")
        #expect(try box.list().isEmpty, "\(watchLog)")
        #expect(watchLog.contains("still queued") && watchLog.contains("sent to"), "\(watchLog)")
        // What arrived is what was queued, each once, as Python reads the received files.
        #expect(try receivedMessageIDs(in: received) == ids, "\(watchLog)")
    }
}

@Suite struct OutboxServiceUnitTests {
    /// data/mailto-route-outbox.service, with `@EXEC@` replaced as the README says,
    /// passes `systemd-analyze verify --user`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: systemdAnalyze), "systemd-analyze is not installed"))
    func theSystemdUserUnitVerifies() throws {
        let sandbox = try Sandbox()
        let template = try String(contentsOf: packageRoot.appendingPathComponent("data/mailto-route-outbox.service"), encoding: .utf8)
        #expect(template.contains("ExecStart=@EXEC@ outbox watch"))
        #expect(template.contains("Restart=on-failure"))
        let unit = try sandbox.write(template.replacingOccurrences(of: "@EXEC@", with: mailtoRouteBinary),
                                     to: "units/mailto-route-outbox.service")
        let result = try run(systemdAnalyze, ["verify", "--user", unit.path], environment: sandbox.environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
    }
}
