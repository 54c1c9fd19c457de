#if canImport(Glibc)
import Glibc
#endif
import ComposeSheet
import MailtoRoute
import MailtoCore

// mailto-route-desktop: the compose sheet (GTK 4), apart from the command line so that
// the handoff and send paths never load GTK. The command line starts it for `open` and
// `compose` when there is a display (Sources/mailto-route/Commands/DesktopSheet.swift).
//
//   mailto-route-desktop open URL [--json]
//   mailto-route-desktop compose [URL] [--json]
//
// Exit status: DESIGN.md's (0 sent or handed off, 75 queued, 3 saved, 4 cancelled,
// 1 failed, 65 a URL that does not read, 64 usage), and 69 (EX_UNAVAILABLE) when GTK
// cannot start (no display it can open): nothing was shown, routed or logged, and the
// command line then takes today's path.

enum DesktopExit {
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    /// GTK could not start: the caller falls back to its own path.
    static let noDisplay: Int32 = 69
}

let usage = "usage: mailto-route-desktop open URL [--json] | compose [URL] [--json]"

func fail(_ message: String, status: Int32) -> Never {
    SheetOutput.write("mailto-route-desktop: \(message)", to: 2)
    _exit(status)
}

var words = Array(CommandLine.arguments.dropFirst())
let json = words.contains("--json")
words.removeAll { $0 == "--json" }
guard let command = words.first, command == "open" || command == "compose" else {
    fail(words.first.map { "unknown command '\($0)'\n\(usage)" } ?? usage, status: DesktopExit.usage)
}
let source: SheetSource = command == "open" ? .link : .compose
let positionals = Array(words.dropFirst())
if let option = positionals.first(where: { $0.hasPrefix("-") }) {
    fail("unknown option '\(option)'\n\(usage)", status: DesktopExit.usage)
}
guard positionals.count <= 1, source == .compose || positionals.count == 1 else {
    fail(usage, status: DesktopExit.usage)
}

let session = Session.current()
var email: EmailData?
if let url = positionals.first {
    switch SheetDelivery.parse(url, session: session) {
    case .success(let parsed): email = parsed
    case .failure(let error): fail(error.description, status: DesktopExit.dataError)
    }
}

guard SheetApplication.canStart() else {
    fail("cannot start GTK: no display it can open", status: DesktopExit.noDisplay)
}

let start = SheetDelivery.start(email, source: source, session: session)
let host = SheetDeliveryHost(source: source, session: session)
let application = SheetApplication()
application.open(start.content, host: host, recovery: start.recovery)
_ = application.run()

guard let report = host.report else {
    fail("the sheet ended without a result", status: 1)
}
// What matters is on disk and said by now; as the command line, no exit handlers.
_exit(SheetOutput.present(report, warnings: start.warnings, json: json, host: host))
