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
