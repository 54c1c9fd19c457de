/// What the chooser shows when a clicked link can go several ways (the first click asks
/// once): GTK-free, so that the desktop program builds it from the plan's ways
/// (`Session.ways`), each as a person reads it.
public struct ChooserContent: Sendable {
    /// One way, as the chooser lists it.
    public struct Way: Sendable, Equatable {
        /// What a screen reader speaks, and the choice's label: "Send from Jane Doe <jane@…>",
        /// "Open in Thunderbird", "Set up sending…".
        public var title: String
        /// Below it: where it comes from.
        public var detail: String
        /// Whether **Always** can keep it (setting up is not a way to keep).
        public var canRemember: Bool

        public init(title: String, detail: String, canRemember: Bool) {
            self.title = title
            self.detail = detail
            self.canRemember = canRemember
        }
    }

    public var ways: [Way]
    /// Whom the link writes to, and its subject, so that the person sees what they choose for.
    public var recipients: String
    public var subject: String?
    /// Whether **Always** can be written at all (an administrator may have locked it).
    public var canRemember: Bool
    /// The application that asked through the Email portal (its app id); `nil`: a link.
    public var requestingApplication: String?
    /// The requesting application's window, which the chooser is kept above (ParentWindow).
    public var parentWindow: ParentWindow?
    /// The way chosen when the chooser opens (`Way.preferred`): Return takes it.
    public var preselected = 0

    public init(ways: [Way], recipients: String, subject: String?, canRemember: Bool) {
        self.ways = ways
        self.recipients = recipients
        self.subject = subject
        self.canRemember = canRemember
    }
}

/// What the person did in the chooser.
public enum ChooserAnswer: Sendable, Equatable {
    /// The way at this index of `ChooserContent.ways`; `always`: keep it for every click.
    case way(Int, always: Bool)
    /// Cancel, or the window closed: nothing is done with the message.
    case cancelled
}
