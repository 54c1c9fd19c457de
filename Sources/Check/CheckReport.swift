import DesktopIntegration
public import MailtoRoute
import Outbox
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

    /// The config file a click reads (it may not exist).
    public var configFile = ""
    /// Where the outbox and the outcome log are.
    public var stateDirectory = ""
    public var handler: Handler
    /// Every program that handles `mailto:` links (`MailHandlers.all`), the default first.
    public var mailPrograms: [MailHandler] = []
    public var mimeapps: Mimeapps
    /// Every browser profile found, with where its `mailto:` links go.
    public var browsers: [BrowserProfile] = []
    public var registration: Registration
    /// Where a handoff goes, or why nowhere.
    public var handoff: Program?
    public var handoffProblem: String?
    public var candidates: [Program]
    public var sandbox: Sandbox
    /// The default account, which a click sends from.
    public var account: AccountFacts
    /// Every account, with where it comes from and whether its credentials can be had now.
    public var accounts: [AccountChoice] = []
    /// Why GNOME Online Accounts could not be asked for its accounts (it did not answer).
    public var onlineAccountsProblem: String?
    /// Every setting of the config files with where it came from; the files read.
    public var settings = Settings()
    /// `nil` with `--offline`, or when there is no usable account to test.
    public var live: SMTPProbe?
    public var policy: Policy
    /// How a clicked link's consent would be asked; whether this run has a terminal.
    public var consent: ConsentReach
    public var hasTerminal: Bool
    /// Whether a compose sheet can be shown for a click here: a display and the sheet
    /// program beside mailto-route (an input of the plan, as for the click itself).
    public var sheetCanShow = false
    /// Every way a clicked link can go now, as the chooser would offer them (`Session.ways`).
    public var ways: [Way] = []
    /// The way the chooser's Always remembered (`always=`), when it can be taken now.
    public var always: Way?
    /// `always=` as written, also when it names what is gone.
    public var alwaysSetting: String?
    /// `handler=` as written: a way chosen, so a click does not ask (`Plan.make`).
    public var handlerSetting: String?
    /// What Always kept for each application of the Email portal (`[portal APPID]`), by app id.
    public var portalWays: [(String, String)] = []
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
        if problems.contains(where: \.isConfiguration) { return ExitStatus.configuration.rawValue }
        return (works ? ExitStatus.success : .failure).rawValue
    }
}
