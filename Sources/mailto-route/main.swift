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
    status = report(error, to: output, json: asksForJSON(words))
}

// Everything is done and said by now: output goes out with write(2), not stdio, and what
// must survive is on disk (the outbox and drafts fsync their files; docs/design.md rule 3).
// exit(3) would still run the C libraries' exit handlers, which only free memory the
// kernel takes back anyway (libcurl's OpenSSL and GnuTLS clean-ups, p11-kit's
// finalisation): about 0.2 ms of every send.
_exit(status.rawValue)
