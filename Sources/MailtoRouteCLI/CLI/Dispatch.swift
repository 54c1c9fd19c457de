import MailtoRoute

/// Picks the subcommand from the first word; `--help`, `--version` and `--check` are
/// accepted where a subcommand would be.
func dispatch(_ words: [String], commands: [any Command.Type], context: Context) throws -> ExitStatus {
    let output = context.output
    guard let first = words.first else {
        throw UsageError(tr("no command given"), usage: Help.synopsis)
    }
    switch first {
    case "--help", "-h":
        output.print(Help.text(commands: commands))
        return .success
    case "help":
        return try help(Array(words.dropFirst()), commands: commands, output: output)
    case "--version", "-V":
        output.print(VersionCommand.text)
        return .success
    case "--check":
        return try CheckCommand.main(Array(words.dropFirst()), context: context)
    default:
        break
    }
    // A bare URL is what `xdg-open mailto:…` and older desktop files run; `--json` may
    // follow it, as it may follow `open URL`.
    if first.hasASCIICaseInsensitivePrefix("mailto:") {
        return try OpenCommand.main(words, context: context)
    }
    if let command = commands.first(where: { $0.name == first }) {
        return try command.main(Array(words.dropFirst()), context: context)
    }
    if first.hasPrefix("-") {
        let suggestion = closest(to: first, among: ["--help", "--version", "--check"])
        throw UsageError(tr("unknown option '%@'", first) + didYouMean(suggestion), usage: Help.synopsis)
    }
    throw UsageError(tr("unknown command '%@'", first) + didYouMean(suggestion(for: first, commands: commands)),
                     usage: Help.synopsis)
}

/// `mailto-route help [COMMAND]`: the general help, or that command's own.
private func help(_ words: [String], commands: [any Command.Type], output: Output) throws -> ExitStatus {
    guard let name = words.first else {
        output.print(Help.text(commands: commands))
        return .success
    }
    let usage = "mailto-route help [COMMAND]"
    guard words.count == 1 else { throw UsageError(tr("unexpected argument '%@'", words[1]), usage: usage) }
    guard let command = commands.first(where: { $0.name == name }) else {
        throw UsageError(tr("unknown command '%@'", name) + didYouMean(suggestion(for: name, commands: commands)), usage: usage)
    }
    output.print(command.helpText)
    return .success
}

/// What the user probably meant by an unknown first word: an address is a `mailto:` URL
/// without its scheme (`mailto-route joe@example.org`); anything else may be a command
/// with a slip of the finger.
private func suggestion(for word: String, commands: [any Command.Type]) -> String? {
    if word.contains("@"), !word.contains(where: \.isWhitespace) {
        return "mailto:\(word)"
    }
    return closest(to: word, among: commands.map { $0.name } + ["help"])
}

/// "; did you mean 'SUGGESTION'?" after an unknown word, or nothing.
func didYouMean(_ suggestion: String?) -> String {
    suggestion.map { tr("; did you mean '%@'?", $0) } ?? ""
}
