#if canImport(Glibc)
import Glibc
#endif
import MailtoRoute

// Test-only: asks for consent and shows report notifications the way the router will,
// so that NotificationTests can drive them from a pseudo-terminal and against a scripted
// notification server on a private bus. Not installed.
//
//   consent-probe ask URL [--from F] [--server S] [--handler NAME | --no-handler]
//                         [--channel automatic|terminal|notification] [--timeout SECONDS]
//       prints "decision: send|handOff|save|cancel" or "decision: notConsented: REASON"
//   consent-probe report SUMMARY [DETAIL]... [--urgent]
//       prints "shown" or "unavailable: REASON" (exit 1)
//   consent-probe reach
//       prints "terminal", "notification: SERVER" or "unreachable: REASON"

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    print("usage: consent-probe ask URL [options] | report SUMMARY [DETAIL]... [--urgent]")
    exit(64)
}
arguments.removeFirst()

@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...index + 1)
    return value
}

@MainActor func flag(_ name: String) -> Bool {
    guard let index = arguments.firstIndex(of: name) else { return false }
    arguments.remove(at: index)
    return true
}

switch command {
case "ask":
    let from = option("--from") ?? "Jane Doe <jane@example.org>"
    let server = option("--server") ?? "smtp.example.org:587"
    let timeout = option("--timeout").flatMap(Double.init) ?? 10
    let channel: ConsentChannel = switch option("--channel") {
    case "terminal": .terminal
    case "notification": .notification
    default: .automatic
    }
    let handler: String? = flag("--no-handler") ? nil : (option("--handler") ?? "Fake Bird")
    guard let url = arguments.first else { print("ask needs a URL"); exit(64) }
    do {
        let email = try MailtoURL.parse(url)
        let question = ConsentQuestion(email: email, from: from, server: server, handlerName: handler)
        let decision = askConsent(question, channel: channel, timeout: timeout)
        switch decision {
        case .notConsented(let reason): print("decision: notConsented: \(reason)")
        default: print("decision: \(decision)")
        }
    } catch {
        print("error: \(error)")
        exit(65)
    }
case "report":
    let urgent = flag("--urgent")
    guard let summary = arguments.first else { print("report needs a summary"); exit(64) }
    do {
        try showReportNotification(summary: summary, details: Array(arguments.dropFirst()), urgent: urgent)
        print("shown")
    } catch {
        print("unavailable: \(error)")
        exit(1)
    }
case "reach":
    switch consentReach() {
    case .terminal: print("terminal")
    case .notification(let server): print("notification: \(server)")
    case .unreachable(let reason): print("unreachable: \(reason)")
    }
default:
    print("unknown command \(command)")
    exit(64)
}
