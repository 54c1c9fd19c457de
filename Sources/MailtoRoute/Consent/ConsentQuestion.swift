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
        var fields: [(String, String)] = [(tr("From"), Self.shown(from))]
        // With more than one recipient the label says how many: a list cut short for room
        // cannot hide that there are more.
        func recipients(_ label: String, _ addresses: [String]) -> (String, String) {
            (addresses.count > 1 ? "\(label) (\(addresses.count))" : label, Self.shown(addresses.map(email.mailbox).joined(separator: ", ")))
        }
        fields.append(email.to.isEmpty ? (tr("To"), tr("(nobody)")) : recipients(tr("To"), email.to))
        if !email.cc.isEmpty { fields.append(recipients(tr("Cc"), email.cc)) }
        if !email.bcc.isEmpty { fields.append(recipients(tr("Bcc"), email.bcc)) }
        fields.append((tr("Subject"), email.subject.map(Self.shown) ?? tr("(no subject)")))
        if !email.attachments.isEmpty {
            fields.append((tr("Attached"), Self.shown(email.attachments.map(\.fileName).joined(separator: ", "))))
        }
        // Rule 8: what a link asked to attach is never attached on its own, and never
        // silently gone either: each file is named, with what becomes of it.
        for path in email.requestedAttachments {
            fields.append((tr("Attach"), tr("%@ will not be attached", Self.shown(path))))
        }
        self.fields = fields
        if email.requestedAttachments.isEmpty {
            attachmentNote = nil
        } else if let handlerName {
            attachmentNote = tr("A link cannot attach files: to send one, hand off to %@ and attach it there.", Self.shown(handlerName))
        } else {
            attachmentNote = tr("A link cannot attach files: to send one, save a draft and attach it in your mail program.")
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
            // Translators: the letter in brackets stays "h" (what the user types).
            second = Choice(letter: "h", key: "handoff", prompt: tr("[h]and off to %@", name),
                            button: tr("Open in %@", name), decision: .handOff)
        } else {
            // Translators: the letter in brackets stays "d" (what the user types).
            second = Choice(letter: "d", key: "save", prompt: tr("save as [d]raft"),
                            button: tr("Save as draft"), decision: .save)
        }
        choices = [
            // Translators: the letter in brackets is what the user types, and stays the
            // same letter (s, h, d, c) in every language: put it where it reads best.
            Choice(letter: "s", key: "send", prompt: tr("[s]end"), button: tr("Send"), decision: .send),
            second,
            // Translators: the letter in brackets stays "c" (what the user types).
            Choice(letter: "c", key: "cancel", prompt: tr("[c]ancel"), button: tr("Cancel"), decision: .cancel),
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
        return escaped.prefix(maximumLineLength) + " " + trn("… (%@ more character)", "… (%@ more characters)", rest, rest)
    }
}
