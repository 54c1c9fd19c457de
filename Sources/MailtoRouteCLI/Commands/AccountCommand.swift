import MailtoRoute
import MIMEMessage
import SMTPTransport

/// `mailto-route account add ADDRESS`: set up a sending account from an address and a
/// password, the server found as Thunderbird finds it and tested before anything is kept
/// (`SendingSetup`; docs/accounts.md "Setting up an account").
enum AccountCommand: Command {
    static let name = "account"
    static let summary = trNoop("Set up a sending account: find its server, test it, keep it.")
    static let usage = "account add ADDRESS [--account NAME] [--host H] [--port P] [--security S] [--user U] "
        + "[--password-stdin] [--json]"
    static let options: [OptionSpec] = [
        .single("--account", "NAME", trNoop("the account's name (default: the address)")),
        .single("--host", "H", trNoop("the submission server, instead of finding it")),
        .single("--port", "P", trNoop("its port (default: 465 with --security tls, else 587)")),
        .single("--security", "S", trNoop("tls or starttls (default: tls on port 465, else starttls)")),
        .single("--user", "U", trNoop("the login (default: the address)")),
        .flag("--password-stdin", trNoop("read the password from standard input, not the terminal")),
        .flag("--json", trNoop("print what was set up as one JSON object")),
    ]
    static let arguments: [(name: String, help: String)] = [
        ("add ADDRESS", trNoop("the address; 'Jane Doe <jane@example.org>' names it too")),
    ]
    static let maxPositionals = 2

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        guard let action = arguments.positionals.first else {
            throw UsageError(tr("account needs an action: add ADDRESS"), usage: fullUsage)
        }
        guard action == "add" else { throw UsageError("unknown account action '\(action)'", usage: fullUsage) }
        guard let addressText = arguments.positionals.dropFirst().first else {
            throw UsageError(tr("account add needs an ADDRESS"), usage: fullUsage)
        }
        let from = try Mailbox(parsing: addressText)
        let manual = try manualServer(arguments)
        let password: String
        if arguments.has("--password-stdin") {
            guard let read = PasswordPrompt.readStandardInput() else {
                throw SendingSetupError(.input, .input, tr("cannot read the password from standard input (at most 4 KB)"))
            }
            password = read
        } else {
            guard let typed = PasswordPrompt.read(tr("Password for %@: ", from.address)) else {
                throw UsageError(tr("no terminal to type the password on: give it on standard input with --password-stdin"),
                                 usage: fullUsage)
            }
            password = typed
        }
        let json = arguments.has("--json")
        let setup = SendingSetup.Context(paths: context.paths, network: context.services.mailServers,
                                         mayPrompt: context.environment.hasDisplay) { step in
            if !json { output.error(step) }
        }
        let request = SendingSetup.Request(from: from, password: password, accountName: arguments.value("--account"),
                                           manual: manual)
        let outcome: SendingSetup.KeptAccount
        do {
            outcome = try SendingSetup.run(request, context: setup)
        } catch {
            if !json {
                for step in error.steps { output.error("  " + step) }
                if error.reason == .notFound, manual == nil {
                    output.error(tr("give the server with --host (and --port, --security, --user) to set it up by hand"))
                }
            }
            throw error
        }
        if json {
            output.print(JSON.object([
                ("account", .string(outcome.accountName)),
                ("address", .string(from.address)),
                ("server", .string(outcome.server.address)),
                ("security", .string(outcome.server.security.rawValue)),
                ("user", .string(outcome.server.user ?? from.address)),
                ("foundBy", .string(outcome.source.rawValue)),
                ("origin", .string(outcome.origin)),
                ("config", .string(outcome.configFile)),
                ("password", .string("keyring")),
            ]).serialized)
        } else {
            output.print(tr("%@: sends through %@ (found by %@); the password is in the keyring, the account in %@",
                            outcome.accountName, outcome.server.description, outcome.origin, outcome.configFile))
        }
        return .success
    }

    /// `--host` and what goes with it; the others without `--host` are a usage error.
    private static func manualServer(_ arguments: Arguments) throws -> SendingSetup.ManualServer? {
        guard let host = arguments.value("--host") else {
            for option in ["--port", "--security", "--user"] where arguments.value(option) != nil {
                throw UsageError(tr("%@ goes with --host", option), usage: fullUsage)
            }
            return nil
        }
        var manual = SendingSetup.ManualServer(host: host, user: arguments.value("--user"))
        if let text = arguments.value("--port") {
            guard let port = Int(text), (1...65535).contains(port) else {
                throw UsageError(tr("--port %@: must be a number from 1 to 65535", text), usage: fullUsage)
            }
            manual.port = port
        }
        if let text = arguments.value("--security") {
            guard let security = SMTPServer.Security(rawValue: text), security != .none else {
                throw UsageError(tr("--security %@: must be tls or starttls", text), usage: fullUsage)
            }
            manual.security = security
        }
        return manual
    }
}
