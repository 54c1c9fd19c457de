import Foundation

/// A private session bus with a scripted org.freedesktop.secrets on it
/// (Resources/secret_service.py, python3-dbus), detached from the test process and
/// stopped when released. `address` goes into DBUS_SESSION_BUS_ADDRESS.
public final class FakeSecretService: @unchecked Sendable {
    public let address: String
    private let pids: [pid_t]

    /// `items`: attributes and the secret stored under them; `locked`: every item is behind
    /// a locked keyring.
    public init(items: [(attributes: [String: String], secret: String)], locked: Bool = false) throws {
        var arguments = [resourcePath("secret_service.py")]
        for item in items {
            let attributes = item.attributes.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            arguments += ["--item", "\(attributes):\(item.secret)"]
        }
        if locked { arguments.append("--locked") }
        let words = try launchDetached(arguments)
        guard words.count == 3, words[0].hasPrefix("unix:") else {
            throw TestServerError(message: "secret_service.py did not start (python3-dbus, python3-gi, dbus-daemon?)")
        }
        address = words[0]
        pids = words.dropFirst().compactMap { pid_t($0) }
    }

    deinit {
        for pid in pids { kill(pid, SIGTERM) }
    }
}
