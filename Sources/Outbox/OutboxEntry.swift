public import MailtoCore

/// A message handed to the outbox: the bytes of an RFC 5322 message, built elsewhere,
/// and the envelope it is to be sent with.
public struct OutboxMessage: Sendable {
    /// The whole message, header and body, with CRLF line ends.
    public var bytes: [UInt8]
    /// The SMTP envelope sender (MAIL FROM).
    public var envelopeFrom: String
    /// The SMTP envelope recipients (RCPT TO): To, Cc and Bcc.
    public var recipients: [String]
    /// Kept across retries, so that a message sent twice by accident is recognisably one.
    /// `nil`: read from the message's own `Message-ID` field.
    public var messageId: String?
    /// `host:port` it was meant for, for the listing.
    public var server: String?
    /// `nil`: read from the message's own `Subject` field.
    public var subject: String?
    /// The name of the account it goes through, retried through the same one;
    /// `nil`: the default account.
    public var account: String?

    public init(
        bytes: [UInt8], envelopeFrom: String, recipients: [String],
        messageId: String? = nil, server: String? = nil, subject: String? = nil, account: String? = nil
    ) {
        self.bytes = bytes
        self.envelopeFrom = envelopeFrom
        self.recipients = recipients
        self.messageId = messageId
        self.server = server
        self.subject = subject
        self.account = account
    }
}

extension Failure {
    /// A sender's error: its own kind when it has one, else transient (worth a retry).
    public init(attempt error: any Error) {
        self.init(error, otherwise: .transient)
    }
}

/// Why a message waits in the outbox before its first attempt, until its `nextAttempt`:
/// the user asked for it, not a server. Nothing sends it before that moment (not even
/// `outbox flush`, which takes every other queued message), and until an attempt at it
/// begins it can be taken back (`OutboxClaim.undo`).
public enum Hold: String, Sendable {
    /// Send held for a few seconds (`undo-send=`), for Undo.
    case undo
    /// Send later, at a time the user chose.
    case later
}

/// What the outbox knows about one queued (or failed) message: its metadata file.
public struct OutboxEntry: Equatable, Sendable {
    public var id: String
    public var created: Timestamp
    /// A message still failing after this moment moves to `failed/`.
    public var expires: Timestamp
    public var attempts: Int
    public var nextAttempt: Timestamp
    public var lastAttempt: Timestamp?
    public var lastError: Failure?
    public var messageId: String?
    public var envelopeFrom: String
    public var recipients: [String]
    public var server: String?
    public var subject: String?
    /// The account it goes through (its name); `nil`: the default account (an entry
    /// queued before accounts had names, or by a caller that named none).
    public var account: String?
    /// The message's size in bytes.
    public var size: Int
    /// Why it waits before its first attempt, until `nextAttempt` (docs/outbox.md, "Held
    /// messages"); `nil` once an attempt began, or for a message that was not held.
    public var hold: Hold?
    /// An attempt began (its claim was recorded, `.attempt-<id>`) and its outcome was not:
    /// the sending process died, or the outbox could not be written after the send. It
    /// counts as a failed attempt, so that it waits its back-off (docs/design.md rule 9).
    var unrecordedAttempt = false

    /// Counts the attempt that began at `time` and whose outcome is not known.
    mutating func countUnrecordedAttempt(at time: Timestamp, policy: RetryPolicy) {
        // Once an attempt began, it is an ordinary queued message (it may have been sent).
        hold = nil
        attempts += 1
        lastAttempt = time
        nextAttempt = time + policy.delay(afterAttempts: attempts)
        lastError = Failure(
            kind: .transient,
            message: tr("the outcome of the attempt at %@ UTC was not recorded (the sending mailto-route ended, or "
                + "the outbox could not be written): it may have been sent", time.shortText))
        unrecordedAttempt = true
    }

    /// The metadata file's contents, keys in a fixed order.
    var json: JSON {
        var members: [(String, JSON)] = [
            ("id", .string(id)),
            ("created", .string(created.iso8601)),
            ("expires", .string(expires.iso8601)),
            ("attempts", .int(attempts)),
            ("nextAttempt", .string(nextAttempt.iso8601)),
            ("lastAttempt", .string(lastAttempt?.iso8601)),
            ("lastError", lastError?.json ?? .null),
            ("messageId", .string(messageId)),
            ("from", .string(envelopeFrom)),
            ("recipients", .strings(recipients)),
            ("server", .string(server)),
            ("subject", .string(subject)),
            ("account", .string(account)),
            ("size", .int(size)),
        ]
        // Only where it applies: the files and JSON of messages that were never held stay
        // as they were.
        if let hold { members.append(("hold", .string(hold.rawValue))) }
        return .object(members)
    }

    init(
        id: String, created: Timestamp, expires: Timestamp, attempts: Int, nextAttempt: Timestamp,
        lastAttempt: Timestamp?, lastError: Failure?, messageId: String?, envelopeFrom: String,
        recipients: [String], server: String?, subject: String?, account: String? = nil, size: Int, hold: Hold? = nil
    ) {
        self.id = id
        self.created = created
        self.expires = expires
        self.attempts = attempts
        self.nextAttempt = nextAttempt
        self.lastAttempt = lastAttempt
        self.lastError = lastError
        self.messageId = messageId
        self.envelopeFrom = envelopeFrom
        self.recipients = recipients
        self.server = server
        self.subject = subject
        self.account = account
        self.size = size
        self.hold = hold
    }

    /// Reads a metadata file; `nil` when it is not one.
    init?(json: JSON) {
        guard let id = json["id"]?.stringValue,
              let created = json["created"]?.stringValue.flatMap(Timestamp.init(iso8601:)),
              let expires = json["expires"]?.stringValue.flatMap(Timestamp.init(iso8601:)),
              let attempts = json["attempts"]?.intValue,
              let nextAttempt = json["nextAttempt"]?.stringValue.flatMap(Timestamp.init(iso8601:)),
              let from = json["from"]?.stringValue,
              let recipients = json["recipients"]?.stringsValue,
              let size = json["size"]?.intValue
        else { return nil }
        let lastError = json["lastError"].flatMap(Failure.init(json:))
        self.init(
            id: id, created: created, expires: expires, attempts: attempts, nextAttempt: nextAttempt,
            lastAttempt: json["lastAttempt"]?.stringValue.flatMap(Timestamp.init(iso8601:)),
            lastError: lastError, messageId: json["messageId"]?.stringValue, envelopeFrom: from,
            recipients: recipients, server: json["server"]?.stringValue,
            subject: json["subject"]?.stringValue, account: json["account"]?.stringValue, size: size,
            hold: json["hold"]?.stringValue.flatMap(Hold.init(rawValue:))
        )
    }

    /// Held at `now`: its time has not come and no attempt at it began.
    public func isHeld(at now: Timestamp) -> Bool {
        hold != nil && !unrecordedAttempt && nextAttempt > now
    }

    /// What `outbox show --json` and `outbox list --json` print for this entry.
    public func json(state: String) -> JSON {
        guard case .object(var members) = json else { return json }
        members.insert(("state", .string(state)), at: 1)
        return .object(members)
    }
}
