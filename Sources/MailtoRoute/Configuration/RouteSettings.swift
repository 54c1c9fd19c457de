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
    /// The first thing in the file that does not read; with it, `policy` is `.handoff`
    /// (unknown words never send a link).
    public var error: ConfigurationError?
    /// The step that mends `error`.
    public var fix: String?

    public init() {}

    /// The keys of `[route]`.
    public static let keys: Set<String> = ["policy", "consent-timeout", "handler"]

    /// Reads `policy=`, `consent-timeout=` and `handler=` of `file` (`path` names it). A
    /// value that is not one of the allowed is a configuration error, and links are handed
    /// off until it is fixed: guessing could send what the user meant to be asked about.
    /// What does read is kept, so that a click and the check hand off to the same `handler=`.
    init(_ file: KeyFile, path: String) {
        // A misspelt key would leave its setting at the default without a word (policy=
        // mistyped leaves links asked about): named, as [account]'s are.
        for key in file.keys(in: "route") where !Self.keys.contains(key) {
            refuse("\(path): unknown key '\(key)' in [route]" + (closest(to: key, among: Self.keys).map { "; did you mean '\($0)'?" } ?? ""),
                   fix: "remove or correct '\(key)' in [route] of \(path) (its keys: \(Self.keys.sorted().joined(separator: ", ")))")
        }
        // A desktop id or webmail:SERVICE has no spaces, so a stray one around it is no error.
        handler = file.string("route", "handler")?.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        if let text = file.string("route", "policy") {
            let value = text.trimmingSpaces()
            if let policy = LinkPolicy(rawValue: value) {
                self.policy = policy
            } else {
                refuse("\(path): policy=\(value.visible) in [route] is not ask, direct or handoff",
                       fix: "set policy= to ask, direct or handoff in [route] of \(path)")
            }
        }
        if let text = file.string("route", "consent-timeout") {
            let value = text.trimmingSpaces()
            if let seconds = Int(value), seconds > 0, seconds <= 3600 {
                consentTimeout = Double(seconds)
            } else {
                refuse("\(path): consent-timeout=\(value.visible) in [route] is not a number of seconds from 1 to 3600",
                       fix: "set consent-timeout= to a number of seconds from 1 to 3600 in [route] of \(path)")
            }
        }
    }

    /// A file that does not read at all: links are handed off until it is fixed.
    init(unreadable error: ConfigurationError, path: String) {
        refuse(error.message, fix: "edit \(path): \(error.message)")
    }

    /// The first mistake wins; any mistake makes links go to the mail program.
    private mutating func refuse(_ message: String, fix: String) {
        guard error == nil else { return }
        error = ConfigurationError(message)
        self.fix = fix
        policy = .handoff
    }
}
