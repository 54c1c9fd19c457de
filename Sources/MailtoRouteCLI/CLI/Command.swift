import MailtoRoute
/// One subcommand: its own file under `Commands/`, its usage line, its options. Its type is
/// all there is of it (`SendableMetatype`), so that the list of them is a plain constant.
protocol Command: SendableMetatype {
    /// The word after `mailto-route`.
    static var name: String { get }
    /// What it does, in one line of `--help`: marked with `trNoop`, translated where the
    /// help is printed (as the options' and arguments' help), not on every run.
    static var summary: String { get }
    /// The usage line, without the leading `mailto-route `.
    static var usage: String { get }
    static var options: [OptionSpec] { get }
    /// The words that are not options (a URL, an action and its ID), each with what it
    /// means, for the command's own help.
    static var arguments: [(name: String, help: String)] { get }
    static var maxPositionals: Int { get }
    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus
}

extension Command {
    static var fullUsage: String { "mailto-route \(usage)" }

    /// `mailto-route help NAME`, `NAME --help` and `NAME -h`.
    static var helpText: String { Help.text(for: self) }

    static func main(_ words: [String], context: Context) throws -> ExitStatus {
        do {
            let arguments = try Arguments(words, options: options, maxPositionals: maxPositionals, usage: fullUsage)
            if arguments.helpRequested {
                context.output.print(helpText)
                return .success
            }
            return try run(arguments, context: context)
        } catch var error as UsageError {
            // The help that answers the mistake is this command's own.
            error.command = error.command ?? name
            throw error
        }
    }
}
