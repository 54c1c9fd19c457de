/// Picks the subcommand from the first word; `--help`, `--version` and `--check` are
/// accepted where a subcommand would be.
func dispatch(_ words: [String], commands: [any Command.Type], output: Output) throws -> ExitStatus {
    guard let first = words.first else {
        throw UsageError("no command given", usage: Help.synopsis)
    }
    switch first {
    case "--help", "-h", "help":
        output.print(Help.text(commands: commands))
        return .success
    case "--version", "-V":
        output.print(VersionCommand.text)
        return .success
    case "--check":
        return try CheckCommand.main(Array(words.dropFirst()), output: output)
    default:
        break
    }
    // A bare URL is what `xdg-open mailto:…` and older desktop files run; `--json` may
    // follow it, as it may follow `open URL`.
    if first.utf8.count >= 7, first.prefix(7).lowercased() == "mailto:" {
        return try OpenCommand.main(words, output: output)
    }
    if let command = commands.first(where: { $0.name == first }) {
        return try command.main(Array(words.dropFirst()), output: output)
    }
    if first.hasPrefix("-") {
        throw UsageError("unknown option '\(first)'", usage: Help.synopsis)
    }
    throw UsageError("unknown command '\(first)'", usage: Help.synopsis)
}
