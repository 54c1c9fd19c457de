/// The text of `mailto-route --help`: what each command does and the exit statuses.
enum Help {
    static let synopsis = "mailto-route [open] URL | COMMAND [OPTIONS]"

    static func text(commands: [any Command.Type]) -> String {
        var lines = [
            "usage: \(synopsis)",
            "",
            "Handle mailto: links: send the message directly, hand it to your mail program,",
            "or save it as a draft, and say which happened.",
            "",
            "Commands:",
        ]
        lines += commands.map { "  mailto-route \($0.usage)" }
        lines += [
            "  mailto-route --help | --version",
            "",
            "Exit status:",
            "  0   sent, or handed off to the mail program",
            "  1   failed (the server refused, the handler could not start)",
            "  3   saved as a draft",
            "  4   cancelled by the user",
            "  64  usage error",
            "  65  bad input, such as a malformed URL",
            "  75  queued in the outbox, will be retried",
            "  78  configuration error",
        ]
        return lines.joined(separator: "\n")
    }
}
