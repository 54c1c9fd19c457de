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
//       display it starts all the same, and shows no sheet: the command line's `Compose`
//       is answered 69 (it then shows the sheet itself), and the rest is routed without
//       one. Its interface is DesktopIntegration's ServiceProtocol.
//   mailto-route-desktop open URL [--local | --trust PATH]... [--requested-by NAME] [--report-file PATH]
//   mailto-route-desktop compose [URL] [--report-file PATH]
//       one sheet in this process, when the service cannot be reached (no session bus);
//       the report, as JSON, to the file (else standard output), for the command line.
//
// Exit status: docs/design.md's (0 sent or handed off, 75 queued, 3 saved, 4 cancelled,
// 1 failed, 65 a URL that does not read, 64 usage), and 69 (EX_UNAVAILABLE) when GTK
// cannot start (no display it can open): nothing was shown, routed or logged, and the
// command line then takes today's path.

enum DesktopExit {
    static let usage = ExitStatus.usage.rawValue
    /// GTK could not start: the caller falls back to its own path.
    static let noDisplay = ServiceProtocol.noDisplay
}

let usage = "usage: mailto-route-desktop open URL [--local | --trust PATH]... [--requested-by NAME] [--report-file PATH] | compose [URL] [--report-file PATH] | --gapplication-service"

/// How long the service stays up with nothing open (GLib's own default for services is
/// 10 s); `MAILTO_ROUTE_SERVICE_IDLE` (seconds) sets it, for tests and the curious.
let serviceIdleSeconds = getenv("MAILTO_ROUTE_SERVICE_IDLE").flatMap { Double(String(cString: $0)) } ?? 10

func fail(_ message: String, status: Int32) -> Never {
    write("mailto-route-desktop: \(message)\n", to: 2)
    _exit(status)
}

/// The words of one sheet, as the command line runs this program when the service cannot
/// be asked: the same request as the service's `Compose` (`open URL` or `compose [URL]`,
/// and the command line's judgement of the URL's attach= files: `--local` for all of
/// them, `--trust PATH` for each one a local program handed over, `--requested-by NAME`
/// for who asked), and where to write the report (`--report-file`; else standard output),
/// as JSON for the command line to print with its own output.
struct SheetArguments {
    var request: ServiceProtocol.Request
    var reportFile: String?

    struct Usage: Error {
        var message: String
    }

    static func parse(_ arguments: [String]) -> Result<SheetArguments, Usage> {
        var words = arguments
        var reportFile: String?
        if let index = words.firstIndex(of: "--report-file") {
            guard index + 1 < words.count else { return .failure(Usage(message: usage)) }
            reportFile = words[index + 1]
            words.removeSubrange(index...index + 1)
        }
        do throws(ServiceProtocol.Request.UsageMistake) {
            return .success(SheetArguments(request: try ServiceProtocol.Request(sheetProgramWords: words), reportFile: reportFile))
        } catch {
            return .failure(Usage(message: "\(error.message)\n\(usage)"))
        }
    }
}

Localization.bind()
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
let opening: SheetDelivery.Opening
switch SheetDelivery.opening(arguments.request, session: session) {
case .success(let opened): opening = opened
case .failure(let refusal): fail(refusal.answer.message, status: refusal.answer.status)
}

// The token the click carries, so that the desktop brings the sheet to the front: read before
// GTK starts, which takes DESKTOP_STARTUP_ID and XDG_ACTIVATION_TOKEN out of the environment.
let activationToken = [getenv("XDG_ACTIVATION_TOKEN"), getenv("DESKTOP_STARTUP_ID")]
    .compactMap { $0.map { String(cString: $0) } }.first { !$0.isEmpty }

guard SheetApplication.canStart() else {
    fail("cannot start GTK: no display it can open", status: DesktopExit.noDisplay)
}

let host = SheetDeliveryHost(source: opening.source, session: session)
let application = SheetApplication()
/// The sheet's start, read when it opens (after the chooser, whose account is its From).
nonisolated(unsafe) var start: SheetStart?
let openSheet = {
    let opened = SheetDelivery.start(opening.email, source: opening.source, session: session,
                                     attachmentsRequestedBy: arguments.request.requestedBy)
    start = opened
    application.open(opened.content, host: host, recovery: opened.recovery, activationToken: activationToken)
}
/// What the chooser's answer came to, when it was not the sheet.
nonisolated(unsafe) var chosen: RouteReport?
if let email = opening.email, ChooserDelivery.wantsChooser(email, source: opening.source, session: session) {
    // A link that can go several ways asks once first (the plan's .choose).
    let ways = session.ways()
    application.openChooser(ChooserDelivery.content(for: email, ways: ways, session: session), activationToken: activationToken) {
        answer in
        switch ChooserDelivery.outcome(of: answer, ways: ways, email: email, session: session,
                                       requestedBy: arguments.request.requestedBy) {
        case .sheet: openSheet()
        // The handoff watches its program for a moment, the chooser still on screen.
        case .route(let request): chosen = session.run(request) { _ in }
        case .cancelled(let report): chosen = report
        }
    }
} else {
    openSheet()
}
_ = application.run()

var report: RouteReport
if let chosen {
    report = chosen
} else {
    guard let ended = host.report else {
        fail("the sheet ended without a result", status: 1)
    }
    report = ended
    report.warnings = (start?.warnings ?? []) + report.warnings
    host.finish(report)
}
// Nobody at a terminal: the user learns in a notification whether it was sent or queued
// (the sheet has closed).
if !hasTerminal(), report.result != .cancelled {
    session.services.notifier.tell(report)
}
// The report as data: the command line prints it with its own output. What matters is on
// disk by now; as the command line, no exit handlers.
let json = report.json.serialized + "\n"
if let path = arguments.reportFile {
    let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
    guard descriptor >= 0 else { fail("cannot write the report to \(path)", status: 1) }
    write(json, to: descriptor)
    close(descriptor)
} else {
    write(json, to: 1)
}
_exit(report.exitStatus)

/// All of `text` to `descriptor` (`MailtoCore.writeAll`).
func write(_ text: String, to descriptor: Int32) {
    var text = text
    _ = text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) }
}
