#if canImport(Glibc)
import Glibc
#endif
// The outbox, the drafts and the outcome log are part of the public API: the router
// stores into them, the command line lists them.
@_exported public import Outbox

/// Where mailto-route keeps what it stores (DESIGN.md, Files), from the XDG base
/// directory variables, read at the moment of use.
public struct StorageLocations: Equatable, Sendable {
    /// `$XDG_STATE_HOME/mailto-route` (default `~/.local/state/mailto-route`).
    public var stateDirectory: String
    /// `$XDG_DATA_HOME/mailto-route` (default `~/.local/share/mailto-route`).
    public var dataDirectory: String

    public init(stateDirectory: String, dataDirectory: String) {
        self.stateDirectory = stateDirectory
        self.dataDirectory = dataDirectory
    }

    /// From an environment. The XDG Base Directory spec: a variable that is unset, empty
    /// or not an absolute path is ignored, and the default below `HOME` applies.
    public init(environment: [String: String], home: String?) throws {
        func base(_ variable: String, default relative: String) throws -> String {
            if let value = environment[variable], value.hasPrefix("/") { return value }
            guard let home, home.hasPrefix("/") else {
                throw OutboxError(.configuration, "neither \(variable) nor HOME is set to an absolute path; cannot find mailto-route's files")
            }
            return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/" + relative
        }
        self.init(
            stateDirectory: try base("XDG_STATE_HOME", default: ".local/state") + "/mailto-route",
            dataDirectory: try base("XDG_DATA_HOME", default: ".local/share") + "/mailto-route"
        )
    }

    /// From this process's environment; `HOME` falls back to the password database.
    public static func current() throws -> StorageLocations {
        var environment: [String: String] = [:]
        for name in ["XDG_STATE_HOME", "XDG_DATA_HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        var home = getenv("HOME").map { String(cString: $0) }
        if home == nil || home == "", let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        return try StorageLocations(environment: environment, home: home)
    }

    public var outbox: Outbox { Outbox(directory: stateDirectory + "/outbox") }
    public var drafts: Drafts { Drafts(directory: dataDirectory + "/drafts") }
    public var outcomeLog: OutcomeLog { OutcomeLog(path: stateDirectory + "/outcomes.log") }
}

/// How the outbox sends: the seam where the SMTP path plugs in.
public enum OutboxDelivery {
    /// A sender for `Outbox.flush` over the configured account, or `nil` when there is
    /// none (or its file cannot be read). The account is read at this moment; its password
    /// is obtained, and the connection made, only when a first message is due, so a run
    /// with nothing to flush never runs a password command. Call it again for the next
    /// flush: nothing is cached across flushes.
    public static func configuredSender() -> ((OutboxClaim) throws -> Void)? {
        guard let account = try? AccountConfiguration.load() else { return nil }
        var sender: Result<OutboxSender, any Error>?
        return { claim in
            let made = sender ?? Result { try OutboxSender(account: account) }
            sender = made
            // A password that cannot be had fails every message the same way, at once.
            try made.get().send(claim)
        }
    }
}
