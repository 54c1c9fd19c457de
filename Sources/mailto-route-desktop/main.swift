#if canImport(Glibc)
import Glibc
#endif
import ComposeSheet
import MailtoRoute
import MailtoCore

// mailto-route-desktop: the compose sheet (GTK 4), apart from the command line so that
// the handoff and send paths never load GTK.
//
//   mailto-route-desktop --gapplication-service
//       the desktop service (io.github.mailto_route.MailtoRoute, D-Bus activated): one
//       primary instance that opens every sheet of the session, for the command line's
//       clicks, for GLib's launch of its desktop entry and for the Email portal
//       (org.freedesktop.impl.portal.desktop.mailtoroute); quits when idle. Without a
//       display it starts all the same, and shows no sheet: the command line's `Open` is
//       answered 69 (it then shows the sheet itself), and the rest is routed without one.
//   mailto-route-desktop open URL [--json]
//   mailto-route-desktop compose [URL] [--json]
//       one sheet in this process, when the service cannot be reached (no session bus).
//
// Exit status: docs/design.md's (0 sent or handed off, 75 queued, 3 saved, 4 cancelled,
// 1 failed, 65 a URL that does not read, 64 usage), and 69 (EX_UNAVAILABLE) when GTK
// cannot start (no display it can open): nothing was shown, routed or logged, and the
// command line then takes today's path.

enum DesktopExit {
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    /// GTK could not start: the caller falls back to its own path.
    static let noDisplay: Int32 = 69
}

let usage = "usage: mailto-route-desktop open URL [--local | --trust PATH]... [--requested-by NAME] [--json] | compose [URL] [--json] | --gapplication-service"

/// How long the service stays up with nothing open (GLib's own default for services is
/// 10 s); `MAILTO_ROUTE_SERVICE_IDLE` (seconds) sets it, for tests and the curious.
let serviceIdleSeconds = getenv("MAILTO_ROUTE_SERVICE_IDLE").flatMap { Double(String(cString: $0)) } ?? 10

func fail(_ message: String, status: Int32) -> Never {
    SheetOutput.write("mailto-route-desktop: \(message)", to: 2)
    _exit(status)
}

/// The words of one sheet: `open URL` or `compose [URL]`, `--json`, and the command line's
/// judgement of the URL's attach= files (`AttachmentTrust.words`: `--local` for all of
/// them, `--trust PATH` for each one a local program handed over, `--requested-by NAME`
/// for who asked).
struct SheetArguments {
    var source: SheetSource
    var url: String?
    var json: Bool
    var trust = AttachmentTrust.none

    struct Usage: Error {
        var message: String
    }

    static func parse(_ arguments: [String]) -> Result<SheetArguments, Usage> {
        var words = arguments
        let json = words.contains("--json")
        words.removeAll { $0 == "--json" }
        let given = words
        guard let trust = AttachmentTrust.take(from: &words) else { return .failure(Usage(message: usage)) }
        guard let command = words.first, command == "open" || command == "compose" else {
            return .failure(Usage(message: words.first.map { "unknown command '\($0)'\n\(usage)" } ?? usage))
        }
        let source: SheetSource = command == "open" ? .link : .compose
        let positionals = Array(words.dropFirst())
        if let option = positionals.first(where: { $0.hasPrefix("-") }) {
            return .failure(Usage(message: "unknown option '\(option)'\n\(usage)"))
        }
        guard positionals.count <= 1, source == .compose || positionals.count == 1 else {
            return .failure(Usage(message: usage))
        }
        guard given == words || source == .link else {
            return .failure(Usage(message: "--local, --trust and --requested-by are for open\n\(usage)"))
        }
        return .success(SheetArguments(source: source, url: positionals.first, json: json, trust: trust))
    }
}

let words = Array(CommandLine.arguments.dropFirst())
if words == ["--gapplication-service"] {
    SheetService.isServiceProcess = true
    // Without a display (an activation environment that lacks one) the service still
    // serves what needs no window: handoffs, the outbox, portal requests without a sheet.
    let application = SheetApplication(id: ServiceNames.applicationID, isService: true,
                                       windowed: SheetApplication.canStart())
    let service = DesktopService(application: application)
    do {
        try service.serve(idleSeconds: serviceIdleSeconds)
    } catch {
        fail(error.description, status: 1)
    }
    _exit(application.run())
}

let arguments: SheetArguments
switch SheetArguments.parse(words) {
case .success(let parsed): arguments = parsed
case .failure(let problem): fail(problem.message, status: DesktopExit.usage)
}

let session = Session.current()
var email: EmailData?
if let url = arguments.url {
    switch SheetDelivery.parse(url, session: session, trust: arguments.trust) {
    case .success(let parsed): email = parsed
    case .failure(let error): fail(error.description, status: DesktopExit.dataError)
    }
}

guard SheetApplication.canStart() else {
    fail("cannot start GTK: no display it can open", status: DesktopExit.noDisplay)
}

let start = SheetDelivery.start(email, source: arguments.source, session: session,
                                attachmentsRequestedBy: arguments.trust.requester)
let host = SheetDeliveryHost(source: arguments.source, session: session)
let application = SheetApplication()
application.open(start.content, host: host, recovery: start.recovery)
_ = application.run()

guard let report = host.report else {
    fail("the sheet ended without a result", status: 1)
}
// What matters is on disk and said by now; as the command line, no exit handlers.
_exit(SheetOutput.present(report, warnings: start.warnings, json: arguments.json, host: host))
