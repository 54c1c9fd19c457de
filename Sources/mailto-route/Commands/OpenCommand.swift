import MailtoRoute

/// `mailto-route open URL` (also a bare `mailto:` URL, as `Exec=… open %u` and links run
/// it): a link from outside, routed by the Router: sent only with the user's consent
/// (or `policy=direct`), else handed to the mail program, else saved as a draft.
/// `--local`: the URL comes from a local program (xdg-email's hook), whose `attach=`
/// files are attached (LocalAttachments).
enum OpenCommand: Command {
    static let name = "open"
    static let summary = "Route a clicked link: ask, then send; or hand off; or save a draft."
    static let usage = "[open] URL [--local] [--json]"
    static let options: [OptionSpec] = [
        .flag("--local", "the URL is from a local program (xdg-email): attach its files"),
        .flag("--json", "print the report as one JSON object"),
    ]
    static let arguments: [(name: String, help: String)] = [("URL", "the mailto: URL of the link (RFC 6068)")]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, output: Output) throws -> ExitStatus {
        let url = try arguments.required("URL", usage: fullUsage)
        let session = Session.current()
        var email: EmailData
        let local = arguments.has("--local")
        do {
            email = try MailtoURL.parse(url)
            // Only a local program says --local (xdg-email-hook.sh); a click runs the
            // desktop file's `open %u`, so a web page's attach= stays a request (rule 8).
            if local { email = try LocalAttachments.trusting(email) }
        } catch let error as any ClassifiedError {
            // Nobody may be at a terminal to read the error line: a click that does
            // nothing visible is the one outcome a link must never have.
            session.tellUnreadableLink(error)
            throw error
        }
        // xdg-email runs its hook whichever program handles mailto: links; when that is
        // another one, the files go to it, as xdg-email would have sent them there.
        let handsOn = local && Handlers.defaultForScheme("mailto").map { !$0.isMailtoRoute } == true
        // With a display, a working account and policy=ask, the link opens the compose
        // sheet, which is its consent (DESIGN.md rule 1); it prints the report itself. A
        // local program's files are ticked there.
        if !handsOn, DesktopSheet.suits(link: session),
           let status = DesktopSheet.run(["open", url] + (local ? ["--local"] : []) + (arguments.has("--json") ? ["--json"] : [])) {
            return status
        }
        var request = RouteRequest(email: email, source: .link)
        if handsOn { request.forcedPath = .handoff }
        let report = session.run(request) {
            output.present($0, json: arguments.has("--json"), source: .link)
        }
        return ExitStatus(for: report)
    }
}
