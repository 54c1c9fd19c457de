import DesktopIntegration

/// What a clicked link does when an account exists: `policy=` in the `[route]` group of
/// the config file (docs/design.md, Files).
public enum LinkPolicy: String, Sendable, CaseIterable {
    /// Send only after the user agreed (the default).
    case ask
    /// Send without asking: standing consent that the user wrote, and `--check` warns about.
    case direct
    /// Never send a link; always hand it to the mail program.
    case handoff
}

/// The `[route]` group of the config file.
public struct RouteSettings: Equatable, Sendable {
    public var policy: LinkPolicy = .ask
    /// How long a consent question waits for an answer (`consent-timeout=`, seconds).
    public var consentTimeout: Double = 120
    /// Where to hand off (`handler=`: a desktop id or `webmail:SERVICE`); `nil`: the
    /// desktop's default.
    public var handler: String?
    /// `webmail-drafts=`: the drafts view of a webmail named by a template
    /// (`handler=webmail:https://…`), `{account}` standing for the account's address
    /// (`Webmail.DraftsTemplate`); checked where it is used.
    public var webmailDrafts: String?
    /// `webmail-browser=` and `webmail-browser-profile=`: the browser (and its profile) a
    /// webmail page opens in; checked where it is used.
    public var webmailBrowser = WebmailBrowser()
    /// The account that sends when none is chosen (`default=`: an account's name, or its
    /// address); `nil`: the only account, else the first (`Session.defaultAccount`).
    public var defaultAccount: String?
    /// The way the chooser's **Always** remembered for clicked links (`always=`: `account:NAME`,
    /// a desktop id, `webmail:SERVICE`; `Way.id`); `nil`: a click asks (`Plan.choose`).
    /// `mailto-route route reset` forgets it.
    public var always: String?
    /// How long the sheet's Send holds a message, with Undo, before it goes (`undo-send=`,
    /// seconds; 0: sent at once).
    public var undoSeconds = 5
    /// The first thing in the file that does not read; with it, `policy` is `.handoff`
    /// (unknown words never send a link).
    public var error: ConfigurationError?
    /// The step that mends `error`.
    public var fix: String?

    public init() {}

    /// The keys of `[route]`.
    public static let keys: Set<String> = ["policy", "consent-timeout", "handler", "default", "always", "undo-send", "webmail-drafts",
                                              "webmail-browser", "webmail-browser-profile"]

    /// Reads `policy=`, `consent-timeout=`, `handler=`, `default=` and `undo-send=` of the `[route]` group
    /// as the config files make it (each key's file names it in a mistake). A value that is
    /// not one of the allowed is a configuration error, and links are handed off until it is
    /// fixed: guessing could send what the user meant to be asked about. What does read is
    /// kept, so that a click and the check hand off to the same `handler=`.
    init(_ group: SettingsGroup) {
        // A misspelt key would leave its setting at the default without a word (policy=
        // mistyped leaves links asked about): named, as [account]'s are.
        for key in group.keys where !Self.keys.contains(key) {
            let path = group.file(of: key)
            refuse(tr("%@: unknown key '%@' in [route]", path, key) + (closest(to: key, among: Self.keys).map { tr("; did you mean '%@'?", $0) } ?? ""),
                   fix: tr("remove or correct '%@' in [route] of %@ (its keys: %@)", key, path, Self.keys.sorted().joined(separator: ", ")))
        }
        // A desktop id or webmail:SERVICE has no spaces, so a stray one around it is no error.
        handler = group.rawValue("handler")?.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        defaultAccount = group.value("default")
        always = group.value("always")
        webmailDrafts = group.rawValue("webmail-drafts")?.trimmingSpaces()
        webmailBrowser = WebmailBrowser(desktopID: group.value("webmail-browser"), profile: group.value("webmail-browser-profile"))
        if let text = group.rawValue("policy") {
            let value = text.trimmingSpaces()
            if let policy = LinkPolicy(rawValue: value) {
                self.policy = policy
            } else {
                let path = group.file(of: "policy")
                refuse(tr("%@: policy=%@ in [route] is not ask, direct or handoff", path, value.visible),
                       fix: tr("set policy= to ask, direct or handoff in [route] of %@", path))
            }
        }
        if let text = group.rawValue("consent-timeout") {
            let value = text.trimmingSpaces()
            if let seconds = Int(value), seconds > 0, seconds <= 3600 {
                consentTimeout = Double(seconds)
            } else {
                let path = group.file(of: "consent-timeout")
                refuse(tr("%@: consent-timeout=%@ in [route] is not a number of seconds from 1 to 3600", path, value.visible),
                       fix: tr("set consent-timeout= to a number of seconds from 1 to 3600 in [route] of %@", path))
            }
        }
        readUndoSeconds(group)
    }

    /// `undo-send=`: a mistake keeps the default hold (never none: a slip of the pen must
    /// not take Undo away unannounced); `check` names it.
    private mutating func readUndoSeconds(_ group: SettingsGroup) {
        guard let text = group.rawValue("undo-send") else { return }
        let value = text.trimmingSpaces()
        if let seconds = Int(value), (0...60).contains(seconds) {
            undoSeconds = seconds
        } else {
            let path = group.file(of: "undo-send")
            refuse(tr("%@: undo-send=%@ in [route] is not a number of seconds from 0 to 60", path, value.visible),
                   fix: tr("set undo-send= to a number of seconds from 0 (off) to 60 in [route] of %@", path))
        }
    }

    /// A file that does not read at all: links are handed off until it is fixed.
    init(unreadable error: ConfigurationError, path: String) {
        refuse(error.message, fix: tr("edit %@: %@", path, error.message))
    }

    /// The first mistake wins; any mistake makes links go to the mail program.
    private mutating func refuse(_ message: String, fix: String) {
        guard error == nil else { return }
        error = ConfigurationError(message)
        self.fix = fix
        policy = .handoff
    }
}
