import Outbox

/// What every run produces (docs/design.md "Data model"): which path, what came of it, and the
/// details that apply. Printed as one human line, or as JSON with `--json`.
public struct RouteReport: Sendable, Equatable {
    public enum Path: String, Sendable { case direct, compose, handoff, outbox, draft, copy }
    /// `copied`: Copy Address put the link's addresses on the clipboard; nothing was sent.
    public enum Result: String, Sendable { case sent, queued, handedOff, saved, cancelled, failed, copied }

    public struct Refusal: Sendable, Equatable {
        public var address: String
        public var reply: String
    }

    public struct Handler: Sendable, Equatable {
        /// A desktop id or `webmail:SERVICE`.
        public var id: String
        public var name: String
    }

    public var path: Path
    public var result: Result
    /// The mail program that has the message, or would have.
    public var handler: Handler?
    /// `host:port`.
    public var server: String?
    /// The account it went (or would go) through: its name (`Session.accounts`).
    public var account: String?
    /// The server's last reply line.
    public var reply: String?
    public var messageId: String?
    public var outboxId: String?
    /// The `.eml` the message was saved to.
    public var draft: String?
    /// A webmail handoff: the mailbox of `account` on `server` (IMAP) where the whole message
    /// waits as a draft (`Drafts`, `[Gmail]/Drafts`).
    public var mailbox: String?
    /// Direct path: the recipients the server accepted, and those it refused with its reply.
    public var accepted: [String] = []
    public var refused: [Refusal] = []
    public var warnings: [String] = []
    /// Some of the message is on no server, with no mail program and in no outbox or draft
    /// (the copy for recipients a server did not take, what a mail program did not get),
    /// as no draft could be written: whoever still holds the message keeps it (rule 3).
    public var keptOnlyByCaller = false
    /// Held in the outbox (Undo send, Send later) until `notBefore`: it is not sent yet.
    public var hold: Hold?
    public var notBefore: Timestamp?
    /// Queued after a failed attempt: when the outbox tries it again.
    public var nextAttempt: Timestamp?
    public var error: Failure?
    /// Copy Address: the text put on the clipboard (`EmailData.copiedAddresses`).
    public var copied: String?
    /// Whom the message is to, as a person reads each (the name given with the address,
    /// else the address): said in a notification's first line.
    public var to: [String] = []
    /// How the request arrived, and which program asked where that is known.
    public var arrival: Arrival?

    /// docs/design.md's exit status for this report (the command line's and the desktop
    /// program's alike): 0 sent or handed off, 2 sent but refused for good for some
    /// recipients (a draft to them is kept), 3 saved, 4 cancelled, 75 queued; a failure by
    /// its kind: 65 input, 78 configuration, else 1.
    public var exitStatus: Int32 {
        switch result {
        case .sent: refusedForGood.isEmpty ? ExitStatus.success.rawValue : ExitStatus.partlyRefused.rawValue
        case .handedOff, .copied: ExitStatus.success.rawValue
        case .saved: ExitStatus.saved.rawValue
        case .cancelled: ExitStatus.cancelled.rawValue
        case .queued: ExitStatus.queued.rawValue
        case .failed: Self.exitStatus(for: error?.kind ?? .permanent)
        }
    }

    /// The status of a failure of `kind` that did not end in the outbox.
    public static func exitStatus(for kind: ErrorKind) -> Int32 {
        switch kind {
        case .input: ExitStatus.dataError.rawValue
        case .configuration: ExitStatus.configuration.rawValue
        case .permanent, .transient: ExitStatus.failure.rawValue
        }
    }

    /// The recipients the server refused for good (a 5xx reply) while it took the message.
    public var refusedForGood: [Refusal] { refused.filter { $0.reply.hasPrefix("5") } }

    public init(path: Path, result: Result) {
        self.path = path
        self.result = result
    }

    /// The keys of docs/design.md in their order, each where it applies; `accepted`/`refused`
    /// on the direct path.
    public var json: JSON {
        var members: [(String, JSON)] = [("path", .string(path.rawValue)), ("result", .string(result.rawValue))]
        if let handler { members.append(("handler", .object([("id", .string(handler.id)), ("name", .string(handler.name))]))) }
        if let account { members.append(("account", .string(account))) }
        if let server { members.append(("server", .string(server))) }
        if let reply { members.append(("reply", .string(reply))) }
        if let messageId { members.append(("messageId", .string(messageId))) }
        if let outboxId { members.append(("outboxId", .string(outboxId))) }
        if let draft { members.append(("draft", .string(draft))) }
        if let mailbox { members.append(("mailbox", .string(mailbox))) }
        if let copied { members.append(("copied", .string(copied))) }
        if let hold { members.append(("hold", .string(hold.rawValue))) }
        if let notBefore { members.append(("notBefore", .string(notBefore.iso8601))) }
        if let nextAttempt { members.append(("nextAttempt", .string(nextAttempt.iso8601))) }
        if path == .direct {
            members.append(("accepted", .strings(accepted)))
            members.append(("refused", .array(refused.map {
                .object([("address", .string($0.address)), ("reply", .string($0.reply))])
            })))
        }
        members.append(("warnings", .strings(warnings)))
        if let error { members.append(("error", error.json)) }
        if !to.isEmpty { members.append(("to", .strings(to))) }
        if let arrival {
            members.append(("arrival", .string(arrival.kind.rawValue)))
            if let requester = arrival.requester { members.append(("requestedBy", .string(requester))) }
        }
        return .object(members)
    }

    /// For a person: what happened, then the details, one per line.
    public var readableLines: [String] {
        var lines = [summary]
        if result == .queued, let error { lines.append(tr("reason: %@", error.message)) }
        if let messageId { lines.append("Message-ID: \(messageId)") }
        if !accepted.isEmpty { lines.append(tr("accepted: %@", accepted.joined(separator: ", "))) }
        for refusal in refused { lines.append(tr("refused: %@: %@", refusal.address, refusal.reply)) }
        if let draft, result != .saved { lines.append(tr("saved as a draft: %@", draft)) }
        if let mailbox { lines.append(storedLine(mailbox)) }
        // The warnings come last, as many as `warnings` has (the command line puts them on
        // standard error).
        for warning in warnings { lines.append(tr("warning: %@", warning)) }
        return lines.map(\.visible)
    }

    /// A notification's first line, in a person's words: what came of it, for whom, and
    /// for a message not sent yet, what happens next (`summary` is the command line's line,
    /// with the server and its reply).
    public var headline: String {
        let whom = to.first.map { to.count > 1 ? trn("%@ and %@ more", "%@ and %@ more", to.count - 1, $0, to.count - 1) : $0 }
        switch result {
        case .sent: return whom.map { tr("Sent to %@", $0) } ?? tr("Sent")
        case .queued where hold != nil:
            switch (whom, notBefore.map(\.localTimeText)) {
            case let (whom?, time?): return tr("Sending to %@ at %@", whom, time)
            case let (whom?, nil): return tr("Sending to %@ later", whom)
            case let (nil, time?): return tr("Sending at %@", time)
            case (nil, nil): return tr("Sending later")
            }
        case .queued:
            let reason = error?.reason ?? tr("the mail server cannot take it now")
            return nextAttempt.map { tr("Not sent yet: %@. It will be tried again at %@.", reason, $0.localTimeText) }
                ?? tr("Not sent yet: %@. It will be tried again.", reason)
        case .handedOff: return handler.map { tr("Opened in %@", $0.name) } ?? tr("Opened in your mail program")
        case .saved: return tr("Saved as a draft")
        case .copied: return tr("Address copied")
        case .cancelled: return tr("Not sent")
        case .failed where path == .copy:
            return error.map { tr("Not copied: %@", $0.message) } ?? tr("Not copied")
        case .failed:
            switch (whom, error?.reason) {
            case let (whom?, reason?): return tr("Not sent to %@: %@", whom, reason)
            case let (whom?, nil): return tr("Not sent to %@", whom)
            case let (nil, reason?): return tr("Not sent: %@", reason)
            case (nil, nil): return tr("Not sent")
            }
        }
    }

    /// A notification's body, below `headline`, for a person: whom it went to, what was
    /// wrong in the project's own words, the draft that keeps it, the warnings. No outbox id,
    /// Message-ID or server reply: those are for `outbox list`, `--json` and the log.
    public var notificationLines: [String] {
        var lines: [String] = []
        if result == .sent, to.count > 1 { lines.append(tr("To %@", to.joined(separator: ", "))) }
        if result == .failed, let error, error.cause != nil { lines.append(error.message) }
        for refusal in refusedForGood { lines.append(tr("Refused by the mail server: %@", refusal.address)) }
        if let draft, result != .saved { lines.append(tr("Saved as a draft: %@", draft)) }
        if let mailbox { lines.append(storedLine(mailbox)) }
        if result == .saved, let draft { lines.append(draft) }
        if result == .copied, let copied { lines.append(copied) }
        return (lines + warnings).map(\.visible)
    }

    /// Where the whole message waits in the account's own mailbox, for a person.
    private func storedLine(_ mailbox: String) -> String {
        tr("the whole message, attachments included, is stored as a draft in %@ of %@ (%@)", mailbox, account ?? "?", server ?? "?")
    }

    /// Whether a notification of this report must stay until the user acts on it: a
    /// failure the setup is to blame for (a password, a server) or one that left the
    /// message with no one but its sender. Others go away by themselves.
    public var needsTheUser: Bool {
        result == .failed && (error?.kind == .configuration || keptOnlyByCaller)
    }

    /// The one line that says which path was taken and what came of it.
    public var summary: String {
        switch result {
        case .sent:
            return reply.map { tr("sent via %@: %@", server ?? "?", $0) } ?? tr("sent via %@", server ?? "?")
        case .queued where hold != nil:
            let held = outboxId.map { tr("held in the outbox as %@", $0) } ?? tr("held in the outbox")
            return notBefore.map { tr("%@ until %@: it is sent then", held, $0.localTimeText) } ?? held
        case .queued:
            let queued = outboxId.map { tr("queued in the outbox as %@", $0) } ?? tr("queued in the outbox")
            return server.map { tr("%@: %@ could not take it now; it will be retried", queued, $0) }
                ?? tr("%@; it will be retried", queued)
        case .handedOff:
            return handler.map { tr("handed off to %@ (%@)", $0.name, $0.id) } ?? tr("handed off to the mail program")
        case .saved:
            return draft.map { tr("saved as a draft: %@", $0) } ?? tr("saved as a draft")
        case .copied:
            return copied.map { tr("copied to the clipboard: %@", $0) } ?? tr("copied to the clipboard")
        case .cancelled:
            return tr("cancelled: not sent")
        case .failed:
            let notSent = path == .copy ? tr("not copied") : server.map { tr("not sent via %@", $0) } ?? tr("not sent")
            return error.map { tr("%@: %@", notSent, $0.message) } ?? notSent
        }
    }
}

extension RouteReport {
    /// Reads back what `json` wrote (the desktop service's answer to the command line):
    /// `nil` when it is not a report.
    public init?(json text: String) {
        guard let object = JSONReader.parse(Array(text.utf8)), let path = object["path"]?.stringValue.flatMap(Path.init),
              let result = object["result"]?.stringValue.flatMap(Result.init)
        else { return nil }
        self.init(path: path, result: result)
        if let id = object["handler"]?["id"]?.stringValue, let name = object["handler"]?["name"]?.stringValue {
            handler = Handler(id: id, name: name)
        }
        server = object["server"]?.stringValue
        account = object["account"]?.stringValue
        reply = object["reply"]?.stringValue
        messageId = object["messageId"]?.stringValue
        outboxId = object["outboxId"]?.stringValue
        draft = object["draft"]?.stringValue
        mailbox = object["mailbox"]?.stringValue
        copied = object["copied"]?.stringValue
        hold = object["hold"]?.stringValue.flatMap(Hold.init(rawValue:))
        notBefore = object["notBefore"]?.stringValue.flatMap(Timestamp.init(iso8601:))
        accepted = object["accepted"]?.stringsValue ?? []
        if case .array(let refusals)? = object["refused"] {
            refused = refusals.compactMap { refusal in
                guard let address = refusal["address"]?.stringValue, let reply = refusal["reply"]?.stringValue else { return nil }
                return Refusal(address: address, reply: reply)
            }
        }
        warnings = object["warnings"]?.stringsValue ?? []
        to = object["to"]?.stringsValue ?? []
        error = object["error"].flatMap(Failure.init(json:))
        nextAttempt = object["nextAttempt"]?.stringValue.flatMap(Timestamp.init(iso8601:))
        arrival = object["arrival"]?.stringValue.flatMap(Arrival.Kind.init(rawValue:)).map {
            Arrival(kind: $0, requester: object["requestedBy"]?.stringValue)
        }
    }
}
