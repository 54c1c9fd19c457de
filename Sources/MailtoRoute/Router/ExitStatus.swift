/// The exit statuses of docs/design.md, the same in `--help` and the man page: one table for
/// the command line, the desktop service and what a route came to (`RouteReport.exitStatus`).
public enum ExitStatus: Int32, Sendable {
    /// Sent, or handed off to the mail program.
    case success = 0
    /// Failed for good: the server refused, the handler could not start.
    case failure = 1
    /// Sent to some recipients; refused for good for others, whose copy is a draft.
    case partlyRefused = 2
    /// Saved as a draft.
    case saved = 3
    /// Cancelled by the user.
    case cancelled = 4
    /// EX_USAGE.
    case usage = 64
    /// EX_DATAERR: bad input, such as a malformed URL.
    case dataError = 65
    /// EX_TEMPFAIL: queued in the outbox, will be retried.
    case queued = 75
    /// EX_CONFIG.
    case configuration = 78
}
