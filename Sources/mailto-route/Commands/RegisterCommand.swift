import MailtoRoute

/// `mailto-route register`: become the desktop's `mailto:` handler.
enum RegisterCommand: Command {
    static let name = "register"
    static let summary = "Make mailto-route the desktop's mailto: handler."
    static let usage = "register [--force]"
    static let options: [OptionSpec] = [
        .flag("--force", "also win over a desktop-specific list that names another program"),
    ]
    static let arguments: [(name: String, help: String)] = []
    static let maxPositionals = 0

    static func run(_ arguments: Arguments, output: Output) throws -> ExitStatus {
        try Registering.register(force: arguments.has("--force")).print(to: output)
        return .success
    }
}

extension Registering.Outcome {
    func print(to output: Output) {
        for line in lines { output.print(line) }
        for warning in warnings { output.error("warning: \(warning)") }
    }
}
