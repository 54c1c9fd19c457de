import MailtoRoute

/// The command line as a library: `mailto-route`'s `main` is one call of `run`, and the
/// tests call it in-process with their own context, as swift-argument-parser's tests
/// call `parseAsRoot`.
public enum CommandLineTool {
    /// Every subcommand, each in its own file under `Commands/`.
    nonisolated(unsafe) static let commands: [any Command.Type] = [
        OpenCommand.self,
        SendCommand.self,
        ComposeCommand.self,
        CheckCommand.self,
        ParseCommand.self,
        RegisterCommand.self,
        UnregisterCommand.self,
        OutboxCommand.self,
        DraftsCommand.self,
        LogCommand.self,
        AccountCommand.self,
        RouteCommand.self,
    ]

    /// Runs the command `words` name (the words after `mailto-route`) and returns its exit
    /// status (docs/design.md): every error is reported on `context.output` here, as one
    /// line or, with `--json`, one object.
    public static func run(_ words: [String], context: Context) -> Int32 {
        do {
            return try dispatch(words, commands: commands, context: context).rawValue
        } catch {
            return report(error, to: context.output, json: asksForJSON(words)).rawValue
        }
    }
}
