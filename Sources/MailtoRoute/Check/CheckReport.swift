public import DesktopIntegration
public import SMTPTransport

/// What `mailto-route --check` found: what a click on a `mailto:` link would do right now,
/// the facts that decide it, and for each problem the step that fixes it. Built by
/// `Check.run`; printed as sections or as one JSON object. Never holds a password.
public struct CheckReport: Sendable {
    /// One problem and the command or step that fixes it.
    public struct Problem: Sendable, Equatable {
        public var problem: String
        public var fix: String
        /// A mistake in the configuration (exit status 78), not merely a missing piece.
        public var isConfiguration: Bool
    }

    public struct Program: Sendable, Equatable {
        public var id: String
        public var name: String
        /// The first word of `Exec=` (empty for webmail).
        public var executable: String
        /// Whether that program can be run (found in `PATH` or at its path).
        public var executableExists: Bool
        /// For the handoff program, when it is not started through GIO: the argv a click
        /// runs (a `Terminal=true` program in the terminal emulator), `%u` for the URL.
        public var runs: [String]? = nil
        /// Why a click could not start it although it exists (a terminal program with no
        /// terminal to run in): the click saves a draft instead.
        public var problem: String? = nil
        /// Whether a click reaches it.
        public var startable: Bool { executableExists && problem == nil }
    }

    /// A desktop file named as a default whose program is gone: GIO ignores it.
    public struct StaleEntry: Sendable, Equatable {
        public var id: String
        public var file: String
        public var program: String
    }

    public struct Handler: Sendable {
        /// GIO's default `mailto:` handler.
        public var gioDefault: Program?
        /// The `mimeapps.list` that set it; `nil` when none did (GIO's first candidate).
        public var setBy: String?
        /// `xdg-mime query default x-scheme-handler/mailto`; `nil` when the tool is missing
        /// or gave no answer (`xdgMimeProblem` says which).
        public var xdgMime: String?
        public var xdgMimeProblem: String?
        /// The two answers name different programs.
        public var disagree: Bool {
            xdgMime.map { $0 != (gioDefault?.id ?? "") } ?? false
        }
    }

    public struct Mimeapps: Sendable {
        public var lists: [MimeappsList]
        /// The list whose default wins (names an installed program first).
        public var winner: String?
        public var overrides: [MimeappsOverride]
        public var stale: [StaleEntry]
    }

    public struct Registration: Sendable {
        public var registered: Bool
        public var isDefault: Bool
        public var desktopFile: String
        /// The default before `register`, remembered for the handoff.
        public var remembered: String?
    }

    public struct Sandbox: Sendable {
        /// The Flatpak application id, when inside Flatpak (`/.flatpak-info`).
        public var flatpak: String?
        /// The Snap name, when inside a Snap (`SNAP`).
        public var snap: String?
        /// `org.freedesktop.portal.Email`'s version; `nil` with `portalProblem` nil: absent.
        public var portalVersion: UInt32?
        /// Why the portal's presence is unknown (no session bus, no answer).
        public var portalUnknown: String?
    }

    public struct AccountFacts: Sendable {
        /// Where the account comes from (the config file or `~/.msmtprc`), `nil`: none.
        public var source: String?
        /// The file's permission bits, such as `600`.
        public var mode: String?
        /// Why it cannot be read (invalid, or a password in a file others can read).
        public var error: String?
        public var from: String?
        /// The address alone, as the verdict names it.
        public var fromAddress: String?
        public var server: String?
        public var security: String?
        public var user: String?
        /// `password-command`, `secret-service`, `password=`, `none`.
        public var passwordSource: String?
        /// Whether a password came without a terminal; `nil` when none is needed.
        public var passwordAvailable: Bool?
        public var passwordError: String?

        public var configured: Bool { source != nil || error != nil }
        public var usable: Bool { source != nil && error == nil && passwordError == nil }
    }

    public struct Policy: Sendable {
        public var value: LinkPolicy
        public var error: String?
        /// The step that mends `error`.
        public var fix: String?
    }

    public struct OutboxFacts: Sendable {
        public var pending: Int = 0
        public var oldest: Timestamp?
        public var lastError: String?
        public var failed: Int = 0
        public var damaged: Int = 0
        public var drafts: Int = 0
        /// The outbox or drafts could not be read.
        public var error: String?
    }

    /// The config file a click reads (it may not exist).
    public var configFile = ""
    /// Where the outbox and the outcome log are.
    public var stateDirectory = ""
    public var handler: Handler
    /// Every program that handles `mailto:` links (`MailHandlers.all`), the default first.
    public var mailPrograms: [MailHandler] = []
    public var mimeapps: Mimeapps
    public var registration: Registration
    /// Where a handoff goes, or why nowhere.
    public var handoff: Program?
    public var handoffProblem: String?
    public var candidates: [Program]
    public var sandbox: Sandbox
    public var account: AccountFacts
    /// `nil` with `--offline`, or when there is no usable account to test.
    public var live: SMTPProbe?
    public var policy: Policy
    /// How a clicked link's consent would be asked; whether this run has a terminal.
    public var consent: ConsentReach
    public var hasTerminal: Bool
    /// Whether a compose sheet can be shown for a click here: a display and the sheet
    /// program beside mailto-route (an input of the plan, as for the click itself).
    public var sheetCanShow = false
    public var outbox: OutboxFacts
    /// The Email portal's backend, by the installed xdg-desktop-portal's rule.
    public var emailBackend = EmailBackend()
    /// The environment a D-Bus-activated mailto-route would get.
    public var activation = Activation()
    /// The desktop service that holds the sheets.
    public var desktopService = DesktopService()
    /// The plan for a clicked link, with the facts above.
    public var decision: Plan
    /// What a click would do, in one sentence.
    public var verdict: String
    /// What `mailto-route open` would do, when a click does not reach mailto-route.
    public var throughMailtoRoute: String?
    /// A click would reach a working path (sent or handed off, not only a draft).
    public var works: Bool
    public var problems: [Problem]
    public var warnings: [String]

    /// 0 when a click reaches a working path, 78 when the configuration has a mistake,
    /// 1 otherwise (only a draft, or a live test that failed).
    public var exitStatus: Int32 {
        if problems.contains(where: \.isConfiguration) { return 78 }
        return works ? 0 : 1
    }
}
