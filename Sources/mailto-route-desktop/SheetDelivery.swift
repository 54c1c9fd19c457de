#if canImport(Glibc)
import Glibc
#endif
import ComposeSheet
import MailtoRoute
import Synchronization

// Every call from the desktop program into MailtoRoute is in this file, so that the
// library's API (being rewritten around a Session with one delivery) is rewired in one
// place: what a sheet opens with, what each of its buttons does, and how the outcome is
// told and logged.

/// Where the message came from, as the outcome log and the report say it.
enum SheetSource {
    /// `open URL`: a clicked link; the sheet is its consent (DESIGN.md rule 1).
    case link
    /// `compose [URL]`: the user sat down to write.
    case compose

    var routeSource: RouteRequest.Source {
        self == .link ? .link : .compose
    }
}

/// The facts a sheet opens with, read once at start (STYLE.md habit 12).
struct SheetStart {
    var content: SheetContent
    var recovery: RecoveryStore?
    /// What a leftover recovery file became (saved as a draft), for the report.
    var warnings: [String]
}

enum SheetDelivery {
    /// Reads a link (exit 65 with one line when it does not read; the outcome log and,
    /// without a terminal, a notification say so, as for the command line).
    static func parse(_ url: String) -> Result<EmailData, MailtoURLError> {
        do {
            return .success(try MailtoURL.parse(url))
        } catch {
            Router.tellUnreadableLink(error)
            return .failure(error)
        }
    }

    /// The account (From), whether Send can work, the mail program for "Open in NAME",
    /// and the recovery files that earlier sheets left: `compose` without a URL offers the
    /// newest one again in the sheet; every other is saved as a draft (rule 3).
    static func start(_ email: EmailData?, source: SheetSource) -> SheetStart {
        var from: String?
        var sendUnavailable: String?
        do {
            if let account = try AccountConfiguration.load() {
                let mailbox = account.from
                from = mailbox.displayName.map { "\($0) <\(mailbox.address)>" } ?? mailbox.address
            } else {
                sendUnavailable = "no account is set up (run mailto-route check to see how)"
            }
        } catch {
            sendUnavailable = error.message
        }
        let settings = RouteSettings.configured()
        let mailProgram = try? Handoff.destination(handler: settings.handler)

        var recovery: RecoveryStore?
        var leftovers: [RecoveredMessage] = []
        if let locations = try? StorageLocations.current() {
            let store = RecoveryStore(stateDirectory: locations.stateDirectory)
            recovery = store
            leftovers = store.takeLeftovers()
        }
        var shown = email ?? EmailData()
        var notices: [String] = []
        if email == nil, let newest = leftovers.popLast() {
            shown = newest.email
            notices.append("This is the message you were writing when its window closed unexpectedly.")
        }
        var warnings: [String] = []
        for leftover in leftovers {
            // The Router's draft path: saved, logged, its path in the report.
            let report = Router.route(RouteRequest(email: leftover.email, source: .compose, forcedPath: .draft))
            let line = report.draft.map { "a message you were writing when its window closed unexpectedly is saved as a draft: \($0)" }
                ?? "a message you were writing when its window closed unexpectedly could not be saved: \(report.summary)"
            warnings.append(line)
            notices.append(line.prefix(1).uppercased() + line.dropFirst())
        }
        let content = SheetContent(
            from: from, sendUnavailable: sendUnavailable, email: shown, mailProgramName: mailProgram?.name,
            notices: notices)
        return SheetStart(content: content, recovery: recovery, warnings: warnings)
    }
}

/// Does what the user chose in a sheet, through the Router, and keeps the report of the
/// choice that ended it. Called from the sheet's worker thread (`perform`) and the main
/// thread (the rest); the reports are behind a lock.
final class SheetDeliveryHost: SheetHost {
    let source: SheetSource
    private let state = Mutex<(final: RouteReport?, lastFailure: RouteReport?)>((nil, nil))

    init(source: SheetSource) {
        self.source = source
    }

    /// The report of how the sheet ended; `nil` while it is open.
    var report: RouteReport? {
        state.withLock { $0.final }
    }

    func perform(_ action: SheetAction, with email: EmailData) -> SheetActionResult {
        // The sheet is the user's own writing and Send their consent: the Router routes it
        // as a compose (no second question), on the path the button names.
        let path: RouteRequest.ForcedPath = switch action {
        case .send: .direct
        case .saveDraft: .draft
        case .handOff: .handoff
        }
        var report = Router.route(RouteRequest(email: email, source: .compose, forcedPath: path))
        guard report.result == .failed else {
            state.withLock { $0.final = report }
            return .finished
        }
        // LEAD: today the Router keeps a failed message as a draft (right for a caller that
        // goes away). The sheet does not go away: the message stays on screen, untouched,
        // for the user to fix and send again or save, so that draft would be a stray
        // duplicate and is removed here. With the Session API, the sheet's delivery should
        // ask for "no draft on failure" instead.
        if let draft = report.draft {
            unlink(draft)
            report.draft = nil
        }
        state.withLock { $0.lastFailure = report }
        return .failed(report.error?.message ?? report.summary)
    }

    func cancelled() {
        let report = RouteReport(path: .compose, result: .cancelled)
        Router.log(report, source: source.routeSource)
        state.withLock { $0.final = report }
    }

    func sheetClosed() {}
}

// MARK: - Telling the outcome

enum SheetOutput {
    /// Prints the report as the command line does (one human line and details, a failure
    /// on standard error, or `--json`), shows it as a notification when nobody is at a
    /// terminal (the sheet closed: the user learns there whether it was sent or queued),
    /// flushes what is due as every run does, and returns DESIGN.md's exit status.
    static func present(_ report: RouteReport, warnings: [String], json: Bool, source: SheetSource) -> Int32 {
        var report = report
        report.warnings = warnings + report.warnings
        let lines = report.readableLines
        if json {
            write(report.json.serialized, to: 1)
        } else {
            for (index, line) in lines.enumerated() {
                if line.hasPrefix("warning: ") || report.result == .failed {
                    write(index == 0 ? "mailto-route: \(line)" : line, to: 2)
                } else {
                    write(line, to: 1)
                }
            }
        }
        if !hasTerminal(), report.result != .cancelled {
            try? showReportNotification(summary: lines[0], details: Array(lines.dropFirst()), urgent: report.result == .failed)
        }
        Router.flushDueAfter(report, source: source.routeSource)
        return exitStatus(for: report)
    }

    /// DESIGN.md's exit statuses, as `mailto-route open` and `compose` give them.
    static func exitStatus(for report: RouteReport) -> Int32 {
        switch report.result {
        case .sent, .handedOff: 0
        case .queued: 75
        case .saved: 3
        case .cancelled: 4
        case .failed:
            switch report.error?.kind {
            case .input: 65
            case .configuration: 78
            default: 1
            }
        }
    }

    static func write(_ line: String, to descriptor: Int32) {
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            written += n
        }
    }
}
