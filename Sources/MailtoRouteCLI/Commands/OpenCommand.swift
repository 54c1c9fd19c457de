import MailtoRoute

/// `mailto-route open URL` (also a bare `mailto:` URL, as `Exec=… open %u` and links run
/// it): a link from outside, routed by the Router: sent only with the user's consent
/// (or `policy=direct`), else handed to the mail program, else saved as a draft.
///
/// A file the URL names (`attach=`) is attached only by a person's hand or a local
/// program's (docs/design.md rule 8): `--local` says the caller built the URL itself and means
/// every file in it (a person or a script, never a link); `--xdg-email` is what xdg-email's
/// hook runs, and who ran xdg-email decides (`XDGEmailCaller`). Anything else, and every
/// file those do not cover, is listed unticked in the sheet and never handed off.
enum OpenCommand: Command {
    static let name = "open"
    static let summary = trNoop("Route a clicked link: ask, then send; or hand off; or save a draft.")
    static let usage = "[open] URL [--local | --xdg-email] [--json]"
    static let options: [OptionSpec] = [
        .flag("--local", trNoop("attach every file the URL names (you built it; never a link)")),
        .flag("--xdg-email", trNoop("xdg-email's hook: attach what a local program handed over")),
        .flag("--json", trNoop("print the report as one JSON object")),
    ]
    static let arguments: [(name: String, help: String)] = [("URL", trNoop("the mailto: URL of the link (RFC 6068)"))]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let url = try arguments.required("URL", usage: fullUsage)
        if arguments.has("--local"), arguments.has("--xdg-email") {
            throw UsageError(tr("--local and --xdg-email cannot be given together"), usage: fullUsage)
        }
        let session = context.session()
        let viaXDGEmail = arguments.has("--xdg-email")
        // How it came (GIO's launch, the portal's, xdg-email's hook, a terminal), said in
        // the report, the log and the sheet; it decides nothing.
        var arrival = Arrival.ofOpen(viaXDGEmail: viaXDGEmail)
        session.arrival = arrival
        // A click runs the desktop file's `open %u`, which says neither: a web page's
        // attach= stays a request (rule 8).
        let email: EmailData
        var trust: AttachmentTrust
        do {
            let parsed = try MailtoURL.parse(url)
            trust = arguments.has("--local") ? .local
                : viaXDGEmail ? XDGEmailCaller.inspect(requested: parsed.requestedAttachments) : .none
            trust.requester = trust.requester ?? arrival.requester
            arrival.requester = trust.requester
            session.arrival = arrival
            email = try LocalAttachments.trusting(parsed, trust)
        } catch let error as any ClassifiedError {
            // Nobody may be at a terminal to read the error line: a click that does
            // nothing visible is the one outcome a link must never have.
            session.tellUnreadableLink(error)
            throw error
        }
        // xdg-email runs its hook whichever program handles mailto: links; when that is
        // another one, the message goes to it, with the files it may carry only.
        let handsOn = (arguments.has("--local") || viaXDGEmail)
            && Handlers.defaultForScheme("mailto").map { !$0.isMailtoRoute } == true
        var request = RouteRequest(email: email, source: .link)
        request.attachmentsRequestedBy = trust.requester
        if handsOn { request.forcedPath = .handoff }
        // The plan may open the compose sheet (a display, an account, policy=ask), which is
        // then the link's consent (docs/design.md rule 1), or the chooser first (no account,
        // or several ways, and none remembered); the desktop program prints the report. The
        // trusted files are ticked there, the others listed unticked with who asked. A sheet
        // that cannot start leaves the plan without one.
        request.sheet = session.canShowSheet
        let plan = session.plan(request)
        if plan == .sheet || plan == .choose {
            // The plan travels with the request: the service carries it out as made here.
            var sheetRequest = ServiceProtocol.Request(url: url, source: .link, trust: trust)
            sheetRequest.plan = plan == .choose ? .choose(session.ways().map(\.offered)) : .sheet
            sheetRequest.arrival = arrival.kind.rawValue
            sheetRequest.parentWindow = arrival.parentWindow
            if let status = DesktopSheet.run(sheetRequest, session: session, json: arguments.has("--json"), output: output) {
                return status
            }
        }
        request.sheet = false
        let report = session.run(request) {
            context.present($0, json: arguments.has("--json"), source: .link)
        }
        endStartupSequence(after: report)
        return ExitStatus(for: report)
    }

    /// A click that opened no window (sent, saved, handed off, failed) ends the startup
    /// sequence its launcher began (X11's startup id, or under mutter on Wayland the click's
    /// activation token, as GIO or the OpenURI portal passed it), so that no busy cursor
    /// waits for a window that never comes; unless the mail program it handed off to takes
    /// the id (StartupNotify=true: its window ends it, and the focus goes there).
    private static func endStartupSequence(after report: RouteReport) {
        guard let id = ClickTokenEnvironment.current() else { return }
        if report.result == .handedOff, let handler = report.handler.flatMap({ AppInfo.named($0.id) }),
           handler.takesStartupNotification {
            return
        }
        StartupSequence.end(id)
    }
}
