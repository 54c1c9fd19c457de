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
        for command in commands {
            lines.append("  " + wrapped("mailto-route \(command.usage)", indent: 6, width: 88))
            lines.append("      \(command.summary)")
        }
        lines += [
            "  mailto-route --help | --version",
            "",
            "Files: $XDG_CONFIG_HOME/mailto-route/config (the account and [route]),",
            "$XDG_STATE_HOME/mailto-route/ (outbox, outcome log),",
            "$XDG_DATA_HOME/mailto-route/drafts/.",
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

    /// `text` broken at spaces before `width` columns, continued with `indent` spaces.
    static func wrapped(_ text: String, indent: Int, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !line.isEmpty, line.count + 1 + word.count > width - (lines.isEmpty ? 2 : indent) {
                lines.append(line)
                line = String(word)
            } else {
                line += line.isEmpty ? String(word) : " " + word
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n" + String(repeating: " ", count: indent))
    }
}
