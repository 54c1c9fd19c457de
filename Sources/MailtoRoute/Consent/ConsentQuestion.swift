/// What a consent prompt shows and offers, the same on a terminal and in a notification.
/// Every value from the message is escaped with `String.visible`: a link cannot hide a
/// recipient or reorder a subject with invisible or bidirectional-control characters, nor
/// reach the terminal with an escape sequence.
public struct ConsentQuestion {
    /// One choice: its letter on the terminal, its key as a notification action.
    struct Choice {
        var letter: Character
        var key: String
        /// As the terminal prompt writes it: `[s]end`.
        var prompt: String
        /// As the notification's button reads.
        var button: String
        var decision: ConsentDecision
    }

    /// Label and escaped value, in the order shown.
    public let fields: [(label: String, value: String)]
    /// The first lines of the body, escaped and cut to `maximumLineLength`.
    let bodyLines: [String]
    /// How many more lines the body has.
    let moreBodyLines: Int
    public let sendingAs: String
    public let server: String
    let choices: [Choice]
    /// Said when the link asked for attachments: how the user can still send a file.
    let attachmentNote: String?

    static let maximumBodyLines = 6
    static let maximumLineLength = 200

    /// The question for sending `email` as `from` through `server` (`host:port`); the
    /// alternative offered is handing off to `handlerName`, or saving a draft when `nil`.
    public init(email: EmailData, from: String, server: String, handlerName: String?) {
        var fields: [(String, String)] = [("From", Self.shown(from))]
        // With more than one recipient the label says how many: a list cut short for room
        // cannot hide that there are more.
        func recipients(_ label: String, _ addresses: [String]) -> (String, String) {
            (addresses.count > 1 ? "\(label) (\(addresses.count))" : label, Self.shown(addresses.map(email.mailbox).joined(separator: ", ")))
        }
        fields.append(email.to.isEmpty ? ("To", "(nobody)") : recipients("To", email.to))
        if !email.cc.isEmpty { fields.append(recipients("Cc", email.cc)) }
        if !email.bcc.isEmpty { fields.append(recipients("Bcc", email.bcc)) }
        fields.append(("Subject", email.subject.map(Self.shown) ?? "(no subject)"))
        if !email.attachments.isEmpty {
            fields.append(("Attached", Self.shown(email.attachments.map(\.fileName).joined(separator: ", "))))
        }
        // Rule 8: what a link asked to attach is never attached on its own, and never
        // silently gone either: each file is named, with what becomes of it.
        for path in email.requestedAttachments {
            fields.append(("Attach", Self.shown(path) + " will not be attached"))
        }
        self.fields = fields
        if email.requestedAttachments.isEmpty {
            attachmentNote = nil
        } else if let handlerName {
            attachmentNote = "A link cannot attach files: to send one, hand off to \(Self.shown(handlerName)) and attach it there."
        } else {
            attachmentNote = "A link cannot attach files: to send one, save a draft and attach it in your mail program."
        }
        var lines = Self.lines(of: email.body ?? "")
        while lines.last?.isEmpty == true { lines.removeLast() }
        bodyLines = lines.prefix(Self.maximumBodyLines).map(Self.shown)
        moreBodyLines = max(0, lines.count - Self.maximumBodyLines)
        sendingAs = Self.shown(from)
        self.server = Self.shown(server)
        let second: Choice
        if let handlerName {
            let name = Self.shown(handlerName)
            second = Choice(letter: "h", key: "handoff", prompt: "[h]and off to \(name)",
                            button: "Open in \(name)", decision: .handOff)
        } else {
            second = Choice(letter: "d", key: "save", prompt: "save as [d]raft",
                            button: "Save as draft", decision: .save)
        }
        choices = [
            Choice(letter: "s", key: "send", prompt: "[s]end", button: "Send", decision: .send),
            second,
            Choice(letter: "c", key: "cancel", prompt: "[c]ancel", button: "Cancel", decision: .cancel),
        ]
    }

    /// The decision an action key stands for, when it is one this question offered.
    func decision(forKey key: String) -> ConsentDecision? {
        choices.first { $0.key == key }?.decision
    }

    /// The decision a typed answer stands for (as `Terminal.ask` gives it: one lower-case
    /// word): the choice's letter or its key. An empty answer is none: Enter never sends.
    func decision(forWord word: String) -> ConsentDecision? {
        choices.first { String($0.letter) == word || $0.key == word }?.decision
    }

    /// Body lines without their line breaks (CRLF in EmailData; LF from the Swift API).
    static func lines(of body: String) -> [String] {
        guard !body.isEmpty else { return [] }
        // "\r\n" is one Character in Swift: split on it and on a bare "\n".
        return body.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" }.map(String.init)
    }

    /// `value` escaped (`String.visible`) and cut to `maximumLineLength` characters.
    static func shown(_ value: String) -> String {
        let escaped = value.visible
        guard escaped.count > maximumLineLength else { return escaped }
        let rest = escaped.count - maximumLineLength
        return escaped.prefix(maximumLineLength) + " … (\(rest) more characters)"
    }
}
