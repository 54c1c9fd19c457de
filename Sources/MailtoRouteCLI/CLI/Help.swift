import MailtoRoute
/// The text of `mailto-route --help` (what each command does and the exit statuses) and of
/// each command's own help (`mailto-route help send`, `send --help`).
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
            "  mailto-route --help | help COMMAND | COMMAND --help | --version",
            "      Show this help, or one command's usage and options; the version.",
            "",
            "Files: $XDG_CONFIG_HOME/mailto-route/config (the account and [route]),",
            "$XDG_STATE_HOME/mailto-route/ (outbox, outcome log),",
            "$XDG_DATA_HOME/mailto-route/drafts/.",
            "",
            "Exit status:",
            "  0   sent, or handed off to the mail program",
            "  1   failed (the server refused, the handler could not start)",
            "  2   sent, but refused for good for some recipients: a draft to them is kept",
            "  3   saved as a draft",
            "  4   cancelled by the user",
            "  64  usage error",
            "  65  bad input, such as a malformed URL",
            "  75  queued in the outbox, will be retried",
            "  78  configuration error",
        ]
        return lines.joined(separator: "\n")
    }

    /// The help of one command: its usage, what it does, its arguments and options, one
    /// line each, as `git help`-style tools print them.
    static func text(for command: any Command.Type) -> String {
        var lines = [wrapped("usage: " + command.fullUsage, indent: 7, width: 80), "", command.summary]
        let options = command.options.map { option in
            (option.name + (option.valueName.map { " \($0)" } ?? ""),
             option.help + (option.arity == .repeated ? " (repeatable)" : ""))
        } + [("-h, --help", "show this help and exit")]
        // One column for both lists, so that the descriptions line up down the page.
        let width = (command.arguments.map(\.name) + options.map(\.0)).map(\.count).max() ?? 0
        let entry = { (name: String, help: String) in
            "  " + name + String(repeating: " ", count: width - name.count + 2) + help
        }
        if !command.arguments.isEmpty {
            lines += ["", "Arguments:"] + command.arguments.map(entry)
        }
        lines += ["", "Options:"] + options.map(entry)
        lines += ["", "Exit status: see 'mailto-route --help' and the man page, mailto-route(1)."]
        return lines.joined(separator: "\n")
    }

    /// `text` broken at spaces before `width` columns, continued with `indent` spaces. A
    /// bracketed group (`[--subject S]`) is kept on one line: an option apart from its
    /// value reads as two.
    static func wrapped(_ text: String, indent: Int, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in groups(text) {
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

    /// `text` split at the spaces outside brackets.
    private static func groups(_ text: String) -> [String] {
        var groups: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            switch character {
            case "[": depth += 1
            case "]": depth = max(0, depth - 1)
            case " " where depth == 0:
                groups.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        groups.append(current)
        return groups
    }
}
