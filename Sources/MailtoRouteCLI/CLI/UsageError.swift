import MailtoRoute

/// A command line that does not fit the command's usage: exit 64 with the usage line.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    /// The usage line of the command that was called, printed under the message.
    var usage: String
    /// The command whose help answers the mistake (`nil`: the general help).
    var command: String?

    init(_ message: String, usage: String, command: String? = nil) {
        self.message = message
        self.usage = usage
        self.command = command
    }

    var description: String { message }
}

/// Whether the command line asks for JSON: `--json` among its options (before `--`). Read
/// from the words themselves, so that an error found before or while parsing them (an
/// unknown option, a missing ID) is said as JSON too.
func asksForJSON(_ words: [String]) -> Bool {
    words.prefix(while: { $0 != "--" }).contains("--json")
}

/// The one place that maps an error to its message and exit status. With `json`, the
/// message is one object on standard output, `{"error": {"kind": ..., "message": ...}}`,
/// as a script that asked for JSON reads it; the status is the same either way. A usage
/// error's kind is `usage`, the others' are their ErrorKind.
func report(_ error: any Error, to output: Output, json: Bool = false) -> ExitStatus {
    let (errorJSON, status) = jsonError(error)
    if json {
        output.print(JSON.object([("error", errorJSON)]).serialized)
        return status
    }
    switch error {
    case let error as UsageError:
        output.error("mailto-route: \(error.message)")
        output.error("usage: \(error.usage)")
        output.error("Try 'mailto-route \(error.command.map { "\($0) " } ?? "")--help' for more information.")
    case let error as any ClassifiedError:
        output.error("mailto-route: \(error.description)")
    default:
        output.error("mailto-route: \(error)")
    }
    return status
}

/// An error as `--json` says it, `{"kind": ..., "message": ...}`, and its exit status: for
/// `report`, and for a command that says the error inside the one document it prints.
func jsonError(_ error: any Error) -> (json: JSON, status: ExitStatus) {
    let kind: String, message: String, status: ExitStatus
    switch error {
    case let error as UsageError:
        (kind, message, status) = ("usage", error.message, .usage)
    case let error as any ClassifiedError:
        (kind, message, status) = (error.kind.rawValue, error.description, ExitStatus(for: error.kind))
    default:
        (kind, message, status) = (ErrorKind.permanent.rawValue, "\(error)", .failure)
    }
    return (.object([("kind", .string(kind)), ("message", .string(message))]), status)
}

extension ExitStatus {
    /// The status for a failure of this kind that did not end in the outbox.
    init(for kind: ErrorKind) {
        self = ExitStatus(rawValue: RouteReport.exitStatus(for: kind)) ?? .failure
    }
}
