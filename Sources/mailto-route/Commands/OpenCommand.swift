import MailtoRoute

/// `mailto-route open URL` (also a bare `mailto:` URL, as `Exec=… open %u` and links run
/// it): a link from outside, routed by the Router: sent only with the user's consent
/// (or `policy=direct`), else handed to the mail program, else saved as a draft.
enum OpenCommand: Command {
    static let name = "open"
    static let summary = "Route a clicked link: ask, then send; or hand off; or save a draft."
    static let usage = "[open] URL [--json]"
    static let options: [OptionSpec] = [.flag("--json", "print the report as one JSON object")]
    static let arguments: [(name: String, help: String)] = [("URL", "the mailto: URL of the link (RFC 6068)")]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, output: Output) throws -> ExitStatus {
        let url = try arguments.required("URL", usage: fullUsage)
        let session = Session.current()
        let email: EmailData
        do {
            email = try MailtoURL.parse(url)
        } catch {
            // Nobody may be at a terminal to read the error line: a click that does
            // nothing visible is the one outcome a link must never have.
            session.tellUnreadableLink(error)
            throw error
        }
        // With a display, a working account and policy=ask, the link opens the compose
        // sheet, which is its consent (DESIGN.md rule 1); it prints the report itself.
        if DesktopSheet.suits(link: session),
           let status = DesktopSheet.run(["open", url] + (arguments.has("--json") ? ["--json"] : [])) {
            return status
        }
        let report = session.run(RouteRequest(email: email, source: .link)) {
            output.present($0, json: arguments.has("--json"), source: .link)
        }
        return ExitStatus(for: report)
    }
}
