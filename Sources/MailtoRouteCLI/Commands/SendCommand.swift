import MailtoRoute

/// `mailto-route send [URL] [--to A]... [--subject S] [--body TEXT|--body-file F|--body -]
/// [--html] [--attach FILE]... [--json]`: the trusted, explicit path for scripts and apps.
/// Trusted: sent directly when an account is usable, else handed off, else saved; exits 0
/// only when a server accepted it or the mail program has it.
enum SendCommand: Command {
    static let name = "send"
    static let summary = trNoop("Send a message from a script or program (no consent asked).")
    static let usage = "send [URL] [--to A]... [--cc A]... [--bcc A]... [--subject S] "
        + "[--body TEXT | --body-file F | --body -] [--html] [--attach FILE]... [--from ADDRESS | --account NAME] "
        + "[--direct | --handoff] [--json]"
    static let options: [OptionSpec] = [
        .repeated("--to", "A", trNoop("add a recipient")),
        .repeated("--cc", "A", trNoop("add a recipient of a copy")),
        .repeated("--bcc", "A", trNoop("add a recipient nobody else sees")),
        .single("--subject", "S", trNoop("the subject")),
        .single("--body", "TEXT", trNoop("the body ('-': read it from standard input)")),
        .single("--body-file", "F", trNoop("read the body from file F")),
        .flag("--html", trNoop("the body is HTML (a plain-text alternative is made from it)")),
        .repeated("--attach", "FILE", trNoop("attach FILE")),
        .single("--from", "ADDRESS", trNoop("send from the account with this address (check lists them)")),
        .single("--account", "NAME", trNoop("send from the account with this name (check lists them)")),
        .flag("--direct", trNoop("send directly or fail: never hand off")),
        .flag("--handoff", trNoop("hand off to the mail program or fail: never send directly")),
        .flag("--json", trNoop("print the report as one JSON object")),
    ]
    static let arguments: [(name: String, help: String)] = [("URL", trNoop("a mailto: URL that fills the message first"))]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        var email = EmailData()
        if let url = arguments.positionals.first {
            email = try MailtoURL.parse(url)
        }
        // `Asa Berg <asa@example.org>` or several, comma-separated: the names are kept.
        for (option, field) in [("--to", \EmailData.to), ("--cc", \.cc), ("--bcc", \.bcc)] {
            for text in arguments.all(option) { try email.addRecipients(text, to: field) }
        }
        if let subject = arguments.value("--subject") { email.subject = subject }
        if arguments.value("--body") != nil, arguments.value("--body-file") != nil {
            throw UsageError(tr("give --body or --body-file, not both"), usage: fullUsage)
        }
        if let body = arguments.value("--body") {
            email.body = body == "-" ? try readBody("/dev/stdin", what: tr("standard input")) : body
        } else if let file = arguments.value("--body-file") {
            email.body = try readBody(file, what: file)
        }
        if arguments.has("--html") { email.isBodyHTML = true }
        email.attachments += arguments.all("--attach").map { Attachment.file($0) }
        if email.allRecipients.isEmpty {
            throw UsageError(tr("no recipient: give a URL with an address, or --to, --cc or --bcc"), usage: fullUsage)
        }
        let forced: RouteRequest.ForcedPath?
        switch (arguments.has("--direct"), arguments.has("--handoff")) {
        case (true, true): throw UsageError(tr("give --direct or --handoff, not both"), usage: fullUsage)
        case (true, false): forced = .direct
        case (false, true): forced = .handoff
        case (false, false): forced = nil
        }

        let session = context.session()
        let chosen = try chosenAccount(arguments, session: session)
        let bar = ProgressBar()
        var request = RouteRequest(
            email: email, source: .send, forcedPath: forced,
            progress: bar.isTerminal ? bar.update : nil, messageSize: { bar.prepare(total: $0) })
        request.account = chosen
        let report = session.run(request) { report in
            bar.finish()
            context.present(report, json: arguments.has("--json"), source: .send)
        }
        return ExitStatus(for: report)
    }

    /// The account `--from ADDRESS` or `--account NAME` picks, by its name; `nil`: the
    /// default. One that picks none is a usage error, before anything is routed: sending
    /// from another address than the one asked for is never a fallback.
    static func chosenAccount(_ arguments: Arguments, session: Session) throws -> String? {
        let from = arguments.value("--from")
        let name = arguments.value("--account")
        if from != nil, name != nil { throw UsageError(tr("give --from or --account, not both"), usage: fullUsage) }
        if let name {
            guard session.accounts.contains(where: { $0.name == name }) else {
                throw UsageError(tr("no account is named '%@'", name.visible) + Self.accountList(session), usage: fullUsage)
            }
            return name
        }
        guard let from else { return nil }
        guard let found = session.account(sendingFrom: from) else {
            throw UsageError(tr("no account sends from '%@'", from.visible) + Self.accountList(session), usage: fullUsage)
        }
        return found.name
    }

    private static func accountList(_ session: Session) -> String {
        let addresses = session.accounts.compactMap { setup in (try? setup.account.get()).map { "\(setup.name) (\($0.from.address))" } }
        return addresses.isEmpty ? " " + tr("(no account is set up: see mailto-route check)") : "; " + tr("the accounts are: %@", addresses.joined(separator: ", "))
    }

    private static func readBody(_ path: String, what: String) throws -> String {
        guard let bytes = try? readFileIfExists(path) else {
            throw UsageError(tr("cannot read the body from %@", what), usage: fullUsage)
        }
        // Never mended behind the caller's back: bytes that are not UTF-8 would go out as
        // U+FFFD (a Latin-1 file, say).
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Failure(kind: .input, message: tr("the body in %@ is not UTF-8 text (convert it first, e.g. with iconv)", what))
        }
        return text
    }
}
