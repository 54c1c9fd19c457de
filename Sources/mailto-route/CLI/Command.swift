/// One subcommand: its own file under `Commands/`, its usage line, its options.
protocol Command {
    /// The word after `mailto-route`.
    static var name: String { get }
    /// What it does, in one line of `--help`.
    static var summary: String { get }
    /// The usage line, without the leading `mailto-route `.
    static var usage: String { get }
    static var options: [OptionSpec] { get }
    static var maxPositionals: Int { get }
    static func run(_ arguments: Arguments, output: Output) throws -> ExitStatus
}

extension Command {
    static var fullUsage: String { "mailto-route \(usage)" }

    static func main(_ words: [String], output: Output) throws -> ExitStatus {
        let arguments = try Arguments(words, options: options, maxPositionals: maxPositionals, usage: fullUsage)
        return try run(arguments, output: output)
    }
}
