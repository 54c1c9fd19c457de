#if canImport(Glibc)
import Glibc
#endif

/// Every subcommand, each in its own file under `Commands/`.
let commands: [any Command.Type] = [
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
]

let output = Output()
let words = Array(CommandLine.arguments.dropFirst())
let status: ExitStatus
do {
    status = try dispatch(words, commands: commands, output: output)
} catch {
    status = report(error, to: output)
}

exit(status.rawValue)
