#if canImport(Glibc)
import Glibc
#endif
import ComposeSheet
import DesktopIntegration
import MailtoCore
import MailtoRoute
import MainLoop
import Synchronization

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
//   mailto-route-desktop open URL [--local | --trust PATH]... [--requested-by NAME] [--arrival HOW] [--report-file PATH]
//   mailto-route-desktop compose [URL] [--report-file PATH]
//       one request in this process, when the service cannot be reached (no session bus):
//       the same flow as the service's `Compose`, in an application of its own that quits
//       once it is answered; the report, as JSON, to the file (else standard output), for
//       the command line.
//
// Exit status: docs/design.md's (0 sent or handed off, 75 queued, 3 saved, 4 cancelled,
// 1 failed, 65 a URL that does not read, 64 usage), and 69 (EX_UNAVAILABLE) when GTK
// cannot start (no display it can open): nothing was shown, routed or logged, and the
// command line then takes today's path.

/// What the program was asked to do, from its words.
public enum DesktopInvocation {
    /// `--gapplication-service`.
    case service
    /// `open URL …` or `compose [URL]`: one request, without the service.
    case oneRequest(SheetArguments)

    public static func parse(_ words: [String]) -> Result<DesktopInvocation, SheetArguments.Usage> {
        if words == ["--gapplication-service"] { return .success(.service) }
        return SheetArguments.parse(words).map { .oneRequest($0) }
    }

    /// Computed: translated when asked for, after `Localization.bind`.
    public static var usage: String {
        tr("usage: %@", "mailto-route-desktop open URL [--local | --trust PATH]... [--requested-by NAME] [--arrival HOW] [--report-file PATH] "
           + "| compose [URL] [--report-file PATH] | --gapplication-service")
    }
}

/// The words of one request, as the command line runs this program when the service cannot
/// be asked: the same request as the service's `Compose` (`open URL` or `compose [URL]`,
/// and the command line's judgement of the URL's attach= files: `--local` for all of
/// them, `--trust PATH` for each one a local program handed over, `--requested-by NAME`
/// for who asked), and where to write the report (`--report-file`; else standard output),
/// as JSON for the command line to print with its own output.
public struct SheetArguments {
    public var request: ServiceProtocol.Request
    public var reportFile: String?

    public struct Usage: Error {
        public var message: String
    }

    public static func parse(_ arguments: [String]) -> Result<SheetArguments, Usage> {
        var words = arguments
        var reportFile: String?
        if let index = words.firstIndex(of: "--report-file") {
            guard index + 1 < words.count else { return .failure(Usage(message: DesktopInvocation.usage)) }
            reportFile = words[index + 1]
            words.removeSubrange(index...index + 1)
        }
        do throws(ServiceProtocol.Request.UsageMistake) {
            return .success(SheetArguments(request: try ServiceProtocol.Request(sheetProgramWords: words), reportFile: reportFile))
        } catch {
            return .failure(Usage(message: "\(error.message)\n\(DesktopInvocation.usage)"))
        }
    }
}

public enum DesktopProgram {
    public static let usageStatus = ExitStatus.usage.rawValue

    /// Runs what `invocation` asks, in this process's `context`: the exit status.
    public static func run(_ invocation: DesktopInvocation, context: DesktopContext) -> Int32 {
        // This thread runs GLib's main loop: from here on it is the main loop's actor.
        GLibMainActor.runHere((invocation, context)) { (program: (DesktopInvocation, DesktopContext)) in
            let (invocation, context) = program
            return switch invocation {
            case .service: serve(context)
            case .oneRequest(let arguments): runOne(arguments, context: context)
            }
        }
    }

    /// How long the service stays up with nothing open (GLib's own default for services is
    /// 10 s); `MAILTO_ROUTE_SERVICE_IDLE` (seconds) sets it, for tests and the curious.
    static var serviceIdleSeconds: Double {
        getenv("MAILTO_ROUTE_SERVICE_IDLE").flatMap { Double(String(cString: $0)) } ?? 10
    }

    @GLibMainActor
    private static func serve(_ context: DesktopContext) -> Int32 {
        SheetService.isServiceProcess = true
        // Without a display (an activation environment that lacks one) the service still
        // serves what needs no window: handoffs, the outbox, portal requests without a sheet.
        let application = SheetApplication(id: ServiceNames.applicationID, isService: true,
                                           windowed: SheetApplication.canStart())
        let service = DesktopService(context: context, presenter: application)
        // Its objects first (Compose, the Email portal), then its name: the call that
        // activated it finds them.
        let server: ServiceServer
        do throws(DesktopError) {
            server = try ServiceServer(answering: service)
            try server.export()
        } catch {
            return fail(error.message, status: 1)
        }
        do {
            try application.serve(service, actions: DesktopService.actions, idleSeconds: serviceIdleSeconds)
        } catch {
            return fail(error.description, status: 1)
        }
        // While it runs, a network that comes back is the moment to send what waits in the
        // outbox (DesktopIntegration's monitor, on this main loop; none: the timers alone).
        let network = try? NetworkWatch { available in
            if available { service.networkAvailable() }
        }
        service.start()
        return withExtendedLifetime((service, server, network)) { application.run() }
    }

    /// One request, as the service's `Compose` answers it, in a non-unique application that
    /// quits once it has answered; the answer's report as JSON to the report file (else
    /// standard output), for the command line to print with its own output.
    @GLibMainActor
    private static func runOne(_ arguments: SheetArguments, context: DesktopContext) -> Int32 {
        var request = arguments.request
        // The token the click carries, so that the desktop brings its first window to the
        // front: as the program was started with it (libgtk-4, linked here, has unset
        // DESKTOP_STARTUP_ID before main), and then out of the environment, spent by that
        // window and inherited by no program started from here.
        request.activationToken = ClickTokenEnvironment.atStart()
        ClickTokenEnvironment.clear()
        // The portal's OpenURI launch names the application's window, inherited from the
        // command line that started this program (Arrival's parentWindow, on the bus).
        if request.parentWindow == nil, request.arrival == Arrival.Kind.portalOpenURI.rawValue {
            request.parentWindow = getenv("PARENT_WINDOW_ID").map { String(cString: $0) }
        }
        // Nobody at a terminal: the user learns in a notification what came of it (the sheet
        // has closed by then).
        request.notify = !hasTerminal()
        let application = SheetApplication(windowed: SheetApplication.canStart())
        let service = DesktopService(context: context, presenter: application, role: .oneRequest)
        let answered = AnswerBox()
        service.compose(request) { answer in answered.answer.withLock { $0 = answer } }
        if answered.answer.withLock({ $0 }) == nil { _ = withExtendedLifetime(service) { application.run() } }
        guard let answer = answered.answer.withLock({ $0 }) else { return fail(tr("the sheet ended without a result"), status: 1) }
        if answer.status == ServiceProtocol.noDisplay {
            return fail(tr("cannot start GTK: no display it can open"), status: answer.status)
        }
        guard let report = answer.report else { return fail(answer.message, status: answer.status) }
        // What matters is on disk by now; as the command line, no exit handlers.
        let json = report + "\n"
        if let path = arguments.reportFile {
            let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard descriptor >= 0 else { return fail(tr("cannot write the report to %@", path), status: 1) }
            write(json, to: descriptor)
            close(descriptor)
        } else {
            write(json, to: 1)
        }
        return answer.status
    }

    /// Says `message` on standard error as this program's: the status to exit with.
    public static func fail(_ message: String, status: Int32) -> Int32 {
        write("mailto-route-desktop: \(message)\n", to: 2)
        return status
    }

    /// All of `text` to `descriptor` (`MailtoCore.writeAll`).
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        _ = text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) }
    }
}

/// The one request's answer, given on the main loop that the program then leaves.
private final class AnswerBox: Sendable {
    let answer = Mutex<ServiceProtocol.Answer?>(nil)
}
