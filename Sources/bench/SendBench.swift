import Foundation
import TestSupport

// `scripts/bench send` and `scripts/bench memory`: the direct path against curl and msmtp,
// same loopback server, same run.

/// A loopback port that was free a moment ago.
func pickPort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Postfix's smtp-sink on a loopback port: accepts and discards, as fast as SMTP goes.
final class SMTPSink {
    let port = pickPort()
    private let process = Process()

    init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/smtp-sink")
        process.environment = referenceEnvironment
        // -u: smtp-sink refuses to run as root without a user to switch to.
        process.arguments = (getuid() == 0 ? ["-u", "nobody"] : []) + ["127.0.0.1:\(port)", "100"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready when it accepts a connection.
        for _ in 0..<100 where !accepts(port) { usleep(20_000) }
    }

    deinit {
        // Never started (its init threw): no pid, and kill(0) would end this process group.
        guard process.processIdentifier > 0 else { return }
        // SIGKILL: a sink has nothing to save, and SIGTERM is ignored by one that inherited
        // a blocked mask (a test harness's thread).
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

func accepts(_ port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// A scratch HOME and XDG_* directories (TestSupport's Sandbox) whose mailto-route config
/// points at `port` on loopback, plain text.
struct BenchHome {
    let sandbox: Sandbox
    var root: URL { sandbox.root }
    var environment: [String: String] { sandbox.environment }
    /// The outbox mailto-route flushes in this home.
    var outboxDirectory: String { sandbox.stateHome.appendingPathComponent("mailto-route/outbox").path }

    init(port: Int) throws {
        sandbox = try Sandbox(prefix: "mailto-route-bench")
        try sandbox.write("[account]\nfrom=Jane Doe <jane@example.org>\nhost=127.0.0.1\nport=\(port)\nsecurity=none\n",
                          to: "home/.config/mailto-route/config")
    }
}

let benchDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
let mailtoRouteRelease = benchDirectory.appendingPathComponent("mailto-route").path
let packageDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func commands(port: Int, home: BenchHome, message: String, attach: String? = nil)
    -> [(name: String, argv: [String], stdin: String?)] {
    var ours = [mailtoRouteRelease, "send", "--to", "joe@example.com", "--subject", "Benchmark", "--body", "Hello Joe,\nhow are you?\n"]
    if let attach { ours += ["--attach", attach] }
    return [
        ("mailto-route", ours, nil),
        ("curl", ["/usr/bin/curl", "-s", "smtp://127.0.0.1:\(port)", "--mail-from", "jane@example.org",
                  "--mail-rcpt", "joe@example.com", "-T", message], nil),
        ("msmtp", ["/usr/bin/msmtp", "-C", "/dev/null", "--host=127.0.0.1", "--port=\(port)", "--from=jane@example.org",
                   "--auth=off", "--tls=off", "joe@example.com"], message),
    ]
}

func benchSend() {
    do {
        let sink = try SMTPSink()
        let home = try BenchHome(port: sink.port)
        let message = home.root.appendingPathComponent("message.eml").path
        try ("From: Jane Doe <jane@example.org>\r\nTo: joe@example.com\r\nSubject: Benchmark\r\n"
            + "Date: Thu, 01 Jan 2026 00:00:00 +0000\r\nMessage-ID: <bench@example.org>\r\nMIME-Version: 1.0\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nHello Joe,\r\nhow are you?\r\n")
            .write(toFile: message, atomically: true, encoding: .utf8)
        let runs = commands(port: sink.port, home: home, message: message)
        func run(_ name: String) -> Double? {
            guard let command = runs.first(where: { $0.name == name }) else { return nil }
            let result = measure(command.argv, environment: name == "mailto-route" ? home.environment : nil, stdinPath: command.stdin)
            guard result.status == 0 else {
                print("send: \(name) failed with status \(result.status) (see /tmp/bench-send-stderr.log)")
                return nil
            }
            return result.seconds
        }
        for _ in 0..<3 {
            _ = run("mailto-route")
            _ = run("curl")
        }
        // mailto-route and curl side by side, who goes first alternating (PairedTimes); msmtp
        // in rounds of its own after them. A program that runs right after msmtp (48 ms of
        // work that leaves the caches cold) is slower for it: curl took 7.9 ms there and 5.6
        // ms after mailto-route, so a round in a fixed order (mailto-route, curl, msmtp) made
        // mailto-route pay for msmtp each time.
        let pairs = PairedTimes(rounds: quick ? 6 : 41, failure: "send: a run failed",
                                ours: { run("mailto-route") }, reference: { run("curl") })
        var msmtpTimes: [Double] = []
        for _ in 0..<(quick ? 3 : 11) {
            guard let seconds = run("msmtp") else { return }
            msmtpTimes.append(seconds)
        }
        let ours = median(pairs.ours), curl = median(pairs.reference), msmtp = median(msmtpTimes)
        print(String(format: "send: one message to smtp-sink on loopback, median of %d: mailto-route %.1f ms; curl -T %.1f ms; msmtp %.1f ms",
                     pairs.ours.count, ours * 1000, curl * 1000, msmtp * 1000))
        print("send: mailto-route send " + Target.atMost(1.25, "×").judge(median(pairs.ratios), reference: "curl -T")
            + "; " + Target.atMost(0.3, "×").judge(ours / msmtp, reference: "msmtp") + " (times: lower is faster)")
    } catch {
        print("send: cannot run: \(error)")
    }
}

/// Peak RSS while sending a 100 MB attachment, checked byte-identical on arrival by
/// Python's email parser (aiosmtpd keeps what it received), with curl and msmtp sending
/// the same message to smtp-sink as references.
func benchMemory() {
    do {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bench-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let attachment = scratch.appendingPathComponent("big.bin").path
        _ = measure(["/bin/dd", "if=/dev/urandom", "of=\(attachment)", "bs=1000000", "count=100", "status=none"])

        // 1. mailto-route to aiosmtpd, which stores the message.
        let received = scratch.appendingPathComponent("received")
        try FileManager.default.createDirectory(at: received, withIntermediateDirectories: true)
        let launcher = Process()
        launcher.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        launcher.environment = referenceEnvironment
        launcher.arguments = [packageDirectory.appendingPathComponent("Tests/TestSupport/Resources/smtp_server.py").path,
                              "--outdir", received.path, "--lifetime", "300"]
        let out = Pipe()
        launcher.standardOutput = out
        try launcher.run()
        let words = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: " ")
        launcher.waitUntilExit()
        guard words.count == 2, let port = Int(words[0]), let serverPID = pid_t(words[1].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            print("memory: cannot start smtp_server.py")
            return
        }
        defer { kill(serverPID, SIGTERM) }
        let home = try BenchHome(port: port)
        let (ours, oursPeak) = measurePeak(commands(port: port, home: home, message: "", attach: attachment)[0].argv,
                                           environment: home.environment)
        guard ours.status == 0 else { print("memory: mailto-route failed with status \(ours.status)"); return }
        guard let oursPeak else { print("memory: time(1) reported no peak RSS for mailto-route"); return }
        let eml = received.appendingPathComponent("1.eml").path
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        check.environment = referenceEnvironment
        check.arguments = ["-c", """
            import email, hashlib, sys
            from email import policy
            m = email.message_from_binary_file(open(sys.argv[1], 'rb'), policy=policy.default)
            a = [p for p in m.walk() if p.get_filename() == 'big.bin'][0]
            print(hashlib.sha256(a.get_payload(decode=True)).hexdigest() == hashlib.sha256(open(sys.argv[2], 'rb').read()).hexdigest())
            """, eml, attachment]
        let checkOut = Pipe()
        check.standardOutput = checkOut
        try check.run()
        let identical = String(decoding: checkOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).hasPrefix("True")
        check.waitUntilExit()

        // 2. The same message (as received) from each program to smtp-sink.
        let sink = try SMTPSink()
        let sinkHome = try BenchHome(port: sink.port)
        var results: [String: (run: Measured, peakKB: Int?)] = [:]
        for run in commands(port: sink.port, home: sinkHome, message: eml, attach: attachment) {
            results[run.name] = measurePeak(run.argv, environment: run.name == "mailto-route" ? sinkHome.environment : nil,
                                            stdinPath: run.stdin)
        }
        let mb = { (kb: Int) in Double(kb) / 1024 }
        /// A reference's peak, or "?" where time(1) reported none.
        let peak = { (name: String) in results[name]?.peakKB.map { String(format: "%.1f MB", mb($0)) } ?? "?" }
        let size = (try? FileManager.default.attributesOfItem(atPath: eml)[.size] as? Int) ?? 0
        print(String(format: "memory: 100 MB attachment (%.1f MB message): mailto-route peak RSS ", Double(size) / 1e6)
            + Target.atMost(40, " MB").judge(mb(oursPeak), format: "%.1f")
            + "; curl -T \(peak("curl")); msmtp \(peak("msmtp")); arrived byte-identical: \(identical ? "yes" : "NO")")
        print(String(format: "memory: time to smtp-sink: mailto-route %.2f s (RSS %@); curl -T %.2f s; msmtp %.2f s",
                     results["mailto-route"]?.run.seconds ?? 0, peak("mailto-route"),
                     results["curl"]?.run.seconds ?? 0, results["msmtp"]?.run.seconds ?? 0))
    } catch {
        print("memory: cannot run: \(error)")
    }
}
