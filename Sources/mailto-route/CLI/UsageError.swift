import MailtoRoute

/// A command line that does not fit the command's usage: exit 64 with the usage line.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    /// The usage line of the command that was called, printed under the message.
    var usage: String

    init(_ message: String, usage: String) {
        self.message = message
        self.usage = usage
    }

    var description: String { message }
}

/// The one place that maps an error to its message and exit status.
func report(_ error: any Error, to output: Output) -> ExitStatus {
    switch error {
    case let error as UsageError:
        output.error("mailto-route: \(error.message)")
        output.error("usage: \(error.usage)")
        output.error("Try 'mailto-route --help' for more information.")
        return .usage
    case let error as any ClassifiedError:
        output.error("mailto-route: \(error.description)")
        return ExitStatus(for: error.kind)
    default:
        output.error("mailto-route: \(error)")
        return .failure
    }
}

extension ExitStatus {
    /// The status for a failure of this kind that did not end in the outbox.
    init(for kind: ErrorKind) {
        switch kind {
        case .input: self = .dataError
        case .configuration: self = .configuration
        case .permanent, .transient: self = .failure
        }
    }
}
