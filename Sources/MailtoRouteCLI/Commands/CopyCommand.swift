import MailtoRoute

/// `mailto-route copy URL [--json]`: Copy Address. The link's recipients, as a person reads
/// them (`EmailData.copiedAddresses`), go on the desktop's clipboard, held by the desktop
/// service: this process ends at once, and on X11 and Wayland a clipboard lasts only as
/// long as the process that owns it. Nothing is sent; the report says `copied`, and the
/// outcome log counts it as every route.
enum CopyCommand: Command {
    static let name = "copy"
    static let summary = trNoop("Copy a mailto: link's addresses to the clipboard (Copy Address).")
    static let usage = "copy URL [--json]"
    static let options: [OptionSpec] = [.flag("--json", trNoop("print the report as one JSON object"))]
    static let arguments: [(name: String, help: String)] = [("URL", trNoop("the mailto: URL whose addresses to copy (RFC 6068)"))]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let email = try MailtoURL.parse(arguments.required("URL", usage: fullUsage))
        let session = context.session()
        let report = session.route(RouteRequest(email: email, source: .link, forcedPath: .copy))
        context.output.present(report, json: arguments.has("--json"))
        return ExitStatus(for: report)
    }
}
