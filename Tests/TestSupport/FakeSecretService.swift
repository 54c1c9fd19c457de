import Foundation

/// A private session bus with a scripted org.freedesktop.secrets on it
/// (Resources/secret_service.py, python3-dbus), detached from the test process and
/// stopped when released. `address` goes into DBUS_SESSION_BUS_ADDRESS.
public final class FakeSecretService: Sendable {
    public let address: String
    private let processes: [ProcessReference]
    private let log: URL

    /// `items`: attributes and the secret stored under them; `locked`: every item is behind
    /// a locked keyring, which its prompt unlocks, or leaves locked when `promptDismissed`;
    /// `stalled`: the service takes its name on the bus and then never answers, as a hung
    /// keyring daemon.
    public init(
        items: [(attributes: [String: String], secret: String)], locked: Bool = false,
        promptDismissed: Bool = false, stalled: Bool = false
    ) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("secret-service-\(UUID().uuidString).log")
        var arguments = [resourcePath("secret_service.py"), "--log", log.path]
        for item in items {
            let attributes = item.attributes.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            arguments += ["--item", "\(attributes):\(item.secret)"]
        }
        if locked { arguments.append("--locked") }
        if promptDismissed { arguments.append("--dismiss") }
        if stalled { arguments.append("--stall") }
        let words = try launchDetached(arguments)
        guard words.count == 3, words[0].hasPrefix("unix:") else {
            throw TestServerError(message: "secret_service.py did not start (python3-dbus, python3-gi, dbus-daemon?)")
        }
        address = words[0]
        processes = words.dropFirst().compactMap { pid_t($0) }.map(ProcessReference.init)
    }

    /// The methods called on the service so far, in order, such as `SearchItems`, `Unlock`,
    /// `Prompt`, `GetSecrets` (Properties calls carry their object path and interface).
    public var calls: [String] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    deinit {
        for process in processes { process.signal(SIGTERM) }
        try? FileManager.default.removeItem(at: log)
    }
}
