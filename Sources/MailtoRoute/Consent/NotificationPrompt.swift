import DesktopIntegration

/// The consent question as a desktop notification with one button per choice
/// (Send / Open in NAME or Save as draft / Cancel).
struct NotificationPrompt {
    let question: ConsentQuestion
    /// A notification body is small: fewer body lines than on a terminal.
    static let bodyLines = 3

    func ask(timeout: Double, callTimeout: Double) -> ConsentDecision {
        var notification = DesktopNotification(
            summary: tr("Send this email?"), body: body,
            actions: question.choices.map { DesktopNotification.Action($0.key, $0.button) },
            // Critical: servers (GNOME Shell among them) keep it on screen until it is
            // answered, instead of tucking a question away after a few seconds.
            urgency: .critical
        )
        notification.expireTimeout = Int32(clamping: Int(timeout * 1000))
        switch Notifications.ask(notification, timeout: timeout, callTimeout: callTimeout) {
        case .action(let key):
            return question.decision(forKey: key) ?? .notConsented(tr("the notification answered with an unknown action '%@'", key.visible))
        case .dismissed:
            return .notConsented(tr("the notification was closed without an answer"))
        case .timedOut:
            return .notConsented(tr("no answer to the notification within %@ s", Int(timeout)))
        case .unavailable(let reason):
            return .notConsented(tr("cannot ask with a notification: %@", reason))
        }
    }

    var body: String {
        var lines = question.fields.map { "\($0.label): \($0.value)" }
        lines.append("Through: \(question.server)")
        if let note = question.attachmentNote { lines.append(note) }
        if !question.bodyLines.isEmpty {
            lines.append("")
            lines += question.bodyLines.prefix(Self.bodyLines)
            let more = question.bodyLines.count - min(question.bodyLines.count, Self.bodyLines) + question.moreBodyLines
            if more > 0 { lines.append(trn("… (%@ more line)", "… (%@ more lines)", more, more)) }
        }
        return lines.joined(separator: "\n")
    }
}
