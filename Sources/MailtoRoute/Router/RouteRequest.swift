public import SMTPTransport

/// One message to route, and what the router must know about where it came from.
public struct RouteRequest: Sendable {
    /// Who handed the message over (docs/design.md rule 1).
    public enum Source: String, Sendable {
        /// A clicked link or another program opening a URL (`open`): never sent without
        /// the user's consent.
        case link
        /// A script that asked to send (`send`): trusted.
        case send
        /// An app that asked to send through the Swift API: trusted.
        case api
        /// The user wrote it in their editor and chose to send it (`compose`): trusted.
        case compose
        /// A saved draft the user asked to send (`drafts send`): trusted.
        case drafts
        /// The outbox, sending what was queued before (a flush): trusted.
        case outbox
        /// The compose sheet: the user wrote it there and pressed its button (the sheet is
        /// a link's consent, docs/design.md rule 1): trusted.
        case sheet
        /// An application through the Email portal (`ComposeEmail`): its attachments are
        /// its own, and it is sent only from the sheet the user confirms, or handed off.
        case portal
    }

    /// A path the caller insists on; impossible is an error, never a silent switch.
    public enum ForcedPath: Sendable {
        case direct
        case handoff
        /// Saved as a draft, and nothing else (the user chose to keep it for later).
        case draft
        /// Copy Address: the recipients on the clipboard, nothing sent (`mailto-route copy`).
        case copy
    }

    public var email: EmailData
    public var source: Source
    /// Whether a message that fails is kept as a draft. `false` for a caller that holds
    /// it itself (the compose sheet keeps it on screen for the user to mend and send
    /// again): a draft then would be a stray copy.
    public var keepsFailedMessage = true
    public var forcedPath: ForcedPath?
    /// How consent is asked for a link under `policy=ask`.
    public var consentChannel: ConsentChannel
    /// Seconds the user has to answer; `nil`: `consent-timeout=` of the config file.
    public var consentTimeout: Double?
    /// Bytes sent of the total, from the sending thread (for a progress bar).
    public var progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)?
    /// The total size of the message, once it is built.
    public var messageSize: (@Sendable (Int) -> Void)?
    /// A person's Stop while it is sent (the sheet's Cancel during "Sending…"): until the
    /// end of the message goes out, the send ends and nothing is sent or queued
    /// (`SendStop`; the report's result is then `cancelled`).
    public var stop: SendStop?
    /// The program that asked to attach `email.requestedAttachments` ("Chromium"), named
    /// in the warning for each; `nil`: the link.
    public var attachmentsRequestedBy: String?
    /// Whether the caller can show the compose sheet for this request (a display and the
    /// sheet program; the service's window): the plan may then be `.sheet`.
    public var sheet = false
    /// What the caller has to say of this request, first among the report's warnings
    /// (the desktop service: why no sheet was shown).
    public var warnings: [String] = []
    /// The account to send from: its name (`Session.accounts`) or its address (`send
    /// --account`, `--from`, the sheet's From); `nil`: the default account.
    public var account: String?
    /// Where a handoff goes, as the person chose it in the chooser for this message (a
    /// desktop id or `webmail:SERVICE`, `Way.handler`); `nil`: `Session.destination()`.
    public var handler: String?
    /// The application that asked through the Email portal (its app id), whose way the
    /// chooser's Always may have kept (`[portal APPID]`); `nil`: none, or not known.
    public var requestingApplication: String?
    /// Send held: into the outbox, to wait until `until` before it goes (the sheet's Undo
    /// time, or Send later), carried by whoever owns the outbox (docs/outbox.md, "Held
    /// messages"); `nil`: sent now. Only on the direct path.
    public var held: (hold: Hold, until: Timestamp)?

    public init(
        email: EmailData, source: Source, forcedPath: ForcedPath? = nil,
        consentChannel: ConsentChannel = .automatic, consentTimeout: Double? = nil,
        progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)? = nil,
        messageSize: (@Sendable (Int) -> Void)? = nil
    ) {
        self.email = email
        self.source = source
        self.forcedPath = forcedPath
        self.consentChannel = consentChannel
        self.consentTimeout = consentTimeout
        self.progress = progress
        self.messageSize = messageSize
    }
}
