import Foundation

/// `Servers/goa-standin.py` on `bus`: GNOME Online Accounts as goa-daemon 3.46 serves it,
/// with the accounts of a JSON file (see the script's docstring), logging every credentials
/// call. Its files live in a directory of its own, outside any sandbox: they hold the
/// tokens and passwords a test then looks for everywhere else. Stopped when released.
public final class GOAStandIn: @unchecked Sendable {
    public let directory: URL
    public var accountsFile: URL { directory.appendingPathComponent("accounts.json") }
    public var logFile: URL { directory.appendingPathComponent("calls.jsonl") }
    private let process: ServerProcess
    private let bus: PrivateSessionBus

    /// `accounts`: the `"accounts"` object of the file, as JSON text.
    public init(on bus: PrivateSessionBus, accounts: String) throws {
        self.bus = bus
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("goa-standin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "{\"accounts\": \(accounts)}".write(to: directory.appendingPathComponent("accounts.json"), atomically: true, encoding: .utf8)
        let ready = directory.appendingPathComponent("ready")
        process = try ServerProcess([
            "/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/goa-standin.py").path,
            "--accounts", directory.appendingPathComponent("accounts.json").path, "--log",
            directory.appendingPathComponent("calls.jsonl").path, "--ready", ready.path,
        ], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], output: directory.appendingPathComponent("log").path)
        try process.waitForReady(ready.path, name: "goa-standin.py")
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every credentials call so far (`method`, `account`, `result`, ...), in order.
    public var calls: [[String: Any]] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? jsonObject(String($0)) }
    }

    /// `METHOD ACCOUNT` of each call, in order.
    public var callNames: [String] {
        calls.map { "\($0["method"] as? String ?? "?") \($0["account"] as? String ?? "?")" }
    }

    /// Replaces the accounts and has the stand-in load them (its `Reload`, answered once
    /// the new state is on the bus).
    public func reload(accounts: String) throws {
        try "{\"accounts\": \(accounts)}".write(to: accountsFile, atomically: true, encoding: .utf8)
        let result = try bus.gdbus(["--dest", "org.gnome.OnlineAccounts", "--object-path", "/org/mailtoroute/GoaStandIn",
                                    "--method", "org.mailtoroute.GoaStandIn.Reload"], environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw TestSupportError("Reload failed: \(result)") }
    }

    /// What Debian's own libgoa (`Servers/goa-client-check.py --compare`) reads of the
    /// stand-in, against its accounts file: its JSON, with `compare.ok`.
    public func libgoaView(calls: Bool = true) throws -> [String: Any] {
        let script = packageRoot.appendingPathComponent("Tests/TestSupport/Servers/goa-client-check.py").path
        let result = try run("/usr/bin/python3", [script, "--compare", accountsFile.path] + (calls ? [] : ["--no-calls"]),
                             environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"])
        guard let view = try? jsonObject(result.stdout) else { throw TestSupportError("goa-client-check.py: \(result)") }
        return view
    }
}

/// `Resources/smtp_server.py` offering SASL mechanisms in a chosen order and taking OAuth
/// 2.0 bearer tokens (`--oauth-token`, `--mechanisms`); it logs each AUTH exchange to
/// `auth.log`. Its own argv carries the tokens and passwords (it is the other side).
public final class SASLTestServer: @unchecked Sendable {
    public let port: Int
    public let directory: URL
    private let pid: pid_t

    public init(certificate: TestCertificates.Pair, oauthTokens: [(user: String, token: String)] = [],
                auth: (user: String, password: String)? = nil, mechanisms: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-sasl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [resourcePath("smtp_server.py"), "--mode", "starttls", "--cert", certificate.cert, "--key", certificate.key,
                         "--outdir", directory.path]
        for pair in oauthTokens { arguments += ["--oauth-token", "\(pair.user):\(pair.token)"] }
        if let auth { arguments += ["--auth", "\(auth.user):\(auth.password)"] }
        if let mechanisms { arguments += ["--mechanisms", mechanisms] }
        let words = try launchDetached(arguments)
        guard words.count == 2, let port = Int(words[0]), let pid = pid_t(words[1]) else {
            throw TestServerError(message: "smtp_server.py did not start (is python3-aiosmtpd installed?)")
        }
        self.port = port
        self.pid = pid
    }

    deinit {
        kill(pid, SIGTERM)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The messages received, in order.
    public var messages: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".eml") }.sorted { Int($0.dropLast(4)) ?? 0 < Int($1.dropLast(4)) ?? 0 }
            .map { directory.appendingPathComponent($0) }
    }

    /// `mail_from`, `rcpt_tos`, `auth`, `mechanism`, `tls` of a received message.
    public func envelope(of message: URL) throws -> [String: Any] {
        let url = message.deletingPathExtension().appendingPathExtension("json")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
    }

    /// Each AUTH exchange, in order (see smtp_server.py).
    public var authLog: [[String: Any]] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("auth.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? jsonObject(String($0)) }
    }
}
