// The outbox, the drafts and the outcome log are part of the public API: the router
// stores into them, the command line lists them.
@_exported public import Outbox

/// Where mailto-route keeps what it stores (docs/design.md, Files): `Paths.storage`.
public struct StorageLocations: Equatable, Sendable {
    /// `$XDG_STATE_HOME/mailto-route` (default `~/.local/state/mailto-route`).
    public var stateDirectory: String
    /// `$XDG_DATA_HOME/mailto-route` (default `~/.local/share/mailto-route`).
    public var dataDirectory: String

    public init(stateDirectory: String, dataDirectory: String) {
        self.stateDirectory = stateDirectory
        self.dataDirectory = dataDirectory
    }

    public var outbox: Outbox { Outbox(directory: stateDirectory + "/outbox") }
    public var drafts: Drafts { Drafts(directory: dataDirectory + "/drafts") }
    public var outcomeLog: OutcomeLog { OutcomeLog(path: stateDirectory + "/outcomes.log") }
    /// The addresses sent to, for the sheet's completion.
    public var recipients: RecipientHistory { RecipientHistory(path: stateDirectory + "/recipients") }
    /// Files a mail program reads after mailto-route has exited (`HandoffFiles`).
    public var handoffDirectory: String { stateDirectory + "/handoff" }
}
