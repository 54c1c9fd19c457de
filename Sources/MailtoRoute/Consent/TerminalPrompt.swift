/// The consent question on a terminal: the message, then `[s]end, [h]and off to NAME,
/// [c]ancel? `, asked again after an answer it does not understand, at most
/// `maximumAttempts` times.
struct TerminalPrompt {
    let terminal: Terminal
    let question: ConsentQuestion
    static let maximumAttempts = 3

    /// Only an explicit `c` cancels. End of input (Ctrl-D, a closed terminal), too many
    /// answers not understood and no answer within `timeout` seconds are no consent: the
    /// message is handed off or saved, never sent and never discarded (rules 1 and 3).
    func ask(timeout: Double) -> ConsentDecision {
        terminal.write(text)
        terminal.discardTypeahead()
        let prompt = question.choices.map(\.prompt).joined(separator: ", ") + "? "
        let letters = question.choices.map { String($0.letter) }.joined(separator: ", ")
        switch terminal.ask(prompt, retry: tr("Please answer %@.\n", letters), attempts: Self.maximumAttempts,
                            timeout: timeout, choose: question.decision(forWord:)) {
        case .chosen(let decision):
            return decision
        case .endOfInput:
            terminal.write(tr("\nNo answer (end of input): not sent.\n"))
            return .notConsented(tr("no answer on the terminal (end of input)"))
        case .timedOut:
            terminal.write(tr("\nNo answer within %@ s: not sent.\n", Int(timeout)))
            return .notConsented(tr("no answer on the terminal within %@ s", Int(timeout)))
        case .notUnderstood:
            terminal.write(tr("No answer understood: not sent.\n"))
            return .notConsented(tr("no answer understood on the terminal"))
        }
    }

    /// The message as the prompt shows it.
    var text: String {
        var lines = [tr("A link asks to send this message:")]
        let width = (question.fields.map(\.label.count).max() ?? 0) + 2
        for field in question.fields {
            let label = field.label + ":"
            lines.append("  " + label + String(repeating: " ", count: max(1, width - label.count)) + field.value)
        }
        if question.bodyLines.isEmpty {
            lines.append("  " + tr("(no body)"))
        } else {
            lines.append("  Body:")
            lines += question.bodyLines.map { "    " + $0 }
            if question.moreBodyLines > 0 {
                lines.append("    " + trn("… (%@ more line)", "… (%@ more lines)", question.moreBodyLines, question.moreBodyLines))
            }
        }
        lines.append(tr("It would be sent as %@ through %@.", question.sendingAs, question.server))
        if let note = question.attachmentNote { lines.append(note) }
        return lines.joined(separator: "\n") + "\n"
    }
}
