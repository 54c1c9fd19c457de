/// What kind of failure an error is; the one thing the command line needs to choose an
/// exit status and the router needs to choose between retrying and reporting.
public enum ErrorKind: String, Equatable, Hashable, Sendable {
    /// May work later: cannot connect, timeout, a 4xx reply. The router queues.
    case transient
    /// Will not work as it is: a 5xx reply, a handler that cannot start.
    case permanent
    /// The user's setup is wrong: config file, password, TLS, no handler.
    case configuration
    /// What was given is wrong: a malformed URL, an address with a line break.
    case input
}

/// An error that knows its kind and says itself in one line a person understands.
public protocol ClassifiedError: Error, CustomStringConvertible {
    var kind: ErrorKind { get }
    /// What it is, as people meet it, where that is one of the common failures.
    var cause: FailureCause? { get }
    /// The library's own words (libcurl's, GLib's), kept out of `description`.
    var detail: String? { get }
}

extension ClassifiedError {
    public var cause: FailureCause? { nil }
    public var detail: String? { nil }
}
