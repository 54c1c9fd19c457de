import DesktopIntegration

/// What the user said about sending a message that came from a link (docs/design.md rule 1:
/// no silent send). Only `.send` allows the direct path.
public enum ConsentDecision: Equatable, Sendable {
    /// Send it now, from the configured account.
    case send
    /// Open it in the mail program instead (offered when there is one).
    case handOff
    /// Save it as a draft instead (offered when there is no mail program).
    case save
    /// The user chose not to send it at all.
    case cancel
    /// No answer: consent could not be asked (no terminal, no notification server that
    /// shows buttons) or the question went unanswered (timeout, notification closed).
    /// Never consent: the caller hands the message off or saves it.
    case notConsented(String)
}

/// Where the question is asked.
public enum ConsentChannel: Equatable, Sendable {
    /// The terminal when there is one (`/dev/tty`, or standard input that is a
    /// terminal), else a desktop notification.
    case automatic
    case terminal
    case notification
}

/// Asks whether a message may be sent, showing `question` (From, To, Cc, Bcc, Subject and
/// the first lines of the body, with invisible and bidirectional-control characters
/// escaped). The choices are send, hand off to the mail program (or save as a draft when
/// there is none), and cancel.
///
/// Never waits longer than `timeout` seconds for the user, nor `callTimeout` seconds for
/// one D-Bus call; whatever keeps the question from being asked or answered is
/// `.notConsented`, never `.send`.
public func askConsent(
    _ question: ConsentQuestion, channel: ConsentChannel = .automatic, timeout: Double = 120, callTimeout: Double = 2
) -> ConsentDecision {
    switch channel {
    case .terminal:
        guard let terminal = Terminal.open() else { return .notConsented("no terminal to ask on") }
        return TerminalPrompt(terminal: terminal, question: question).ask(timeout: timeout)
    case .notification:
        return NotificationPrompt(question: question).ask(timeout: timeout, callTimeout: callTimeout)
    case .automatic:
        if let terminal = Terminal.open() {
            return TerminalPrompt(terminal: terminal, question: question).ask(timeout: timeout)
        }
        return NotificationPrompt(question: question).ask(timeout: timeout, callTimeout: callTimeout)
    }
}

/// How a link's consent would be asked at this moment, for `--check`.
public enum ConsentReach: Equatable, Sendable {
    /// On this terminal.
    case terminal
    /// With a notification from this server (name and version), which shows buttons.
    case notification(server: String)
    /// Not at all: the reason. A link would be handed off or saved, never sent.
    case unreachable(String)
}

/// How `askConsent(channel: .automatic)` would ask right now: the same checks, with no
/// question shown. `includingTerminal: false` answers for a clicked link, which has no
/// terminal even when the one asking has.
public func consentReach(callTimeout: Double = 2, includingTerminal: Bool = true) -> ConsentReach {
    if includingTerminal, Terminal.open() != nil { return .terminal }
    do {
        let server = try Notifications.server(callTimeout: callTimeout)
        guard server.showsButtons else {
            return .unreachable("the notification server (\(server.name.visible)) shows no buttons (no 'actions' capability)")
        }
        return .notification(server: server.name)
    } catch {
        return .unreachable("no terminal, and no notification server: \(error.message)")
    }
}

/// Whether a person is at a terminal to read the report and answer questions; without
/// one (a clicked link), the report goes to a desktop notification.
public func hasTerminal() -> Bool {
    Terminal.open() != nil
}

/// Shows a run's outcome as an informational desktop notification, for when there is no
/// terminal (a clicked link must be told what happened): `summary` is the report's first
/// line, `details` the rest. `urgent` (a failure) asks the server to keep it on screen.
/// Throws when it could not be shown (no session bus, no notification server), within
/// `callTimeout` seconds per call.
public func showReportNotification(
    summary: String, details: [String] = [], urgent: Bool = false, callTimeout: Double = 2
) throws(DesktopError) {
    let notification = DesktopNotification(
        summary: summary.visible,
        body: details.map(\.visible).joined(separator: "\n"),
        urgency: urgent ? .critical : .normal
    )
    try Notifications.show(notification, callTimeout: callTimeout)
}
