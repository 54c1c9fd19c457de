import MailtoRoute

/// `mailto-route parse URL [--json]`: print the EmailData a URL yields, and nothing else.
enum ParseCommand: Command {
    static let name = "parse"
    static let summary = "Print what a mailto: URL says, as mailto-route reads it."
    static let usage = "parse URL [--json]"
    static let options: [OptionSpec] = [.flag("--json", "print the message as one JSON object")]
    static let arguments: [(name: String, help: String)] = [("URL", "the mailto: URL to read (RFC 6068)")]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let email = try MailtoURL.parse(arguments.required("URL", usage: fullUsage))
        if arguments.has("--json") {
            output.print(email.json.serialized)
        } else {
            output.print(email.readableLines.joined(separator: "\n"))
        }
        return .success
    }
}
