#if canImport(Glibc)
import Glibc
#endif
import MailtoRoute

/// The command line as a library: `mailto-route`'s `main` is one call of `run`, and the
/// tests call it in-process with their own context, as swift-argument-parser's tests
/// call `parseAsRoot`.
public enum CommandLineTool {
    /// Every subcommand, each in its own file under `Commands/`.
    static let commands: [any Command.Type] = [
        OpenCommand.self,
        SendCommand.self,
        ComposeCommand.self,
        CheckCommand.self,
        ParseCommand.self,
        CopyCommand.self,
        RegisterCommand.self,
        UnregisterCommand.self,
        PortalCommand.self,
        OutboxCommand.self,
        DraftsCommand.self,
        LogCommand.self,
        AccountCommand.self,
        RouteCommand.self,
        WebmailCommand.self,
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

    /// The words of this process's command line, after `mailto-route`: each as its text,
    /// except a file to attach (the value of `--attach`), kept as
    /// `LocalPath` text so that a name that is not UTF-8 (a Latin-1 one from an old
    /// archive) still names its file, where `CommandLine.arguments` would have put U+FFFD.
    public static func processWords() -> [String] {
        var words: [String] = []
        // (An argv with no words at all, which execve allows, has none after the name.)
        for index in 1..<max(1, Int(CommandLine.argc)) {
            guard let word = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeRawBufferPointer(start: word, count: strlen(word))
            if words.last == pathOption {
                words.append(LocalPath.text(bytes))
            } else if bytes.starts(with: "\(pathOption)=".utf8) {
                // `--attach=FILE`
                words.append(pathOption + "=" + LocalPath.text(bytes.dropFirst(pathOption.utf8.count + 1)))
            } else {
                words.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return words
    }

    /// The option whose value is a local file's path, opened as `LocalPath` text. (A plain
    /// string, not a set: this runs at every click's start, where each generic type the
    /// Swift runtime builds for the first time costs.)
    static let pathOption = "--attach"

    /// Whether `words` ask for JSON (`--json` before `--`): `main` leaves the messages of
    /// such a run untranslated, as a script reads them.
    public static func asksForJSON(_ words: [String]) -> Bool {
        MailtoRouteCLI.asksForJSON(words)
    }
}
