import Foundation
import Outbox
import Testing
import TestSupport

/// `make bench` runs mailto-route `send` (whose quick flush sends what is due) and
/// `outbox flush` against postfix's smtp-sink, which discards everything. With the
/// caller's XDG_STATE_HOME exported (as many desktops and shells do), a bench that moved
/// only HOME and XDG_CONFIG_HOME flushed the caller's real outbox into the sink. Here the
/// caller has a message queued and due, for an account whose server is up: after the
/// sections that send (run `--quick`: where they write is the point, not their figures),
/// it is still queued, and the caller's server got nothing.
@Suite struct BenchIsolationTests {
    @Test func aMessageInTheCallersOutboxSurvivesTheBenchmarksThatSend() throws {
        let caller = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(caller, port: server.port, security: "none")
        let outbox = Outbox(directory: caller.stateHome.appendingPathComponent("mailto-route/outbox").path)
        let text = "From: jane@example.org\r\nTo: ann@example.org\r\nSubject: Still mine\r\n"
            + "Message-ID: <caller@example.org>\r\n\r\nQueued before the bench.\r\n"
        try outbox.enqueue(OutboxMessage(bytes: Array(text.utf8), envelopeFrom: "jane@example.org", recipients: ["ann@example.org"]))
        #expect(try outbox.due().count == 1, "the caller's message is due: a flush in the caller's home would send it")

        // As a person runs it, from a shell: the caller's environment, signals unblocked
        // (ServerProcess), its output kept.
        var environment = caller.environment
        environment["PATH"] = "/usr/sbin:" + (environment["PATH"] ?? "/usr/bin:/bin")
        let output = caller.root.appendingPathComponent("bench.out")
        let bench = try ServerProcess([builtExecutable("bench"), "--quick", "send", "flush"], environment: environment, output: output.path)
        // The send section's figures are out while the flush section still runs (`make
        // bench` prints each as it finishes, also into a file, where stdio buffers).
        var sendPrintedWhileRunning = false
        var status: Int32?
        try waitUntil("the bench has ended: \(caller.contents(output) ?? "")", timeout: 600) {
            let sendPrinted = caller.contents(output)?.contains("send: mailto-route send ") == true
            status = bench.wait(timeout: 0)
            // Seen before the bench had ended.
            if sendPrinted, status == nil { sendPrintedWhileRunning = true }
            return status != nil
        }
        let printed = caller.contents(output) ?? ""
        #expect(status == 0, "\(printed)")
        #expect(printed.contains("flush: 100 messages"), "\(printed)")
        #expect(sendPrintedWhileRunning, "the send figures appeared only when the bench ended")
        // Each figure with its target and where it stands (`make bench` says it of each).
        for figure in ["× curl -T (target ≤ 1.25×): ", "× msmtp (target ≤ 0.3×): ", "× smtp-source (target ≥ 0.5×): ",
                       "× a msmtp loop (target ≥ 20×): "] {
            #expect(printed.contains(figure + "met") || printed.contains(figure + "NOT MET"), "\(figure): \(printed)")
        }
        #expect(!printed.contains("failed") && !printed.contains("cannot run"), "\(printed)")

        let left = try outbox.list()
        #expect(left.count == 1, "\(left)")
        #expect(server.messages.isEmpty, "the caller's server got \(server.messages)")
        let listed = try route(["outbox", "list", "--json"], in: caller)
        #expect(listed.stdout.contains("Still mine"), "\(listed)")
    }
}
