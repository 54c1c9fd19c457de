import DesktopIntegration

/// What a clicked link does when an account exists: `policy=` in the `[route]` group of
/// the config file (DESIGN.md, Files).
public enum LinkPolicy: String, Sendable, CaseIterable {
    /// Send only after the user agreed (the default).
    case ask
    /// Send without asking: standing consent that the user wrote, and `--check` warns about.
    case direct
    /// Never send a link; always hand it to the mail program.
    case handoff

}

/// The `[route]` group of the config file, read at the moment of routing.
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

    /// Reads `policy=`, `consent-timeout=` and `handler=`. A value that is not one of the
    /// allowed is a configuration error, and links are handed off until it is fixed:
    /// guessing could send what the user meant to be asked about. What does read is kept,
    /// so that a click and the check, which both go by this, hand off to the same `handler=`.
    public static func configured() -> RouteSettings {
        let path = AccountConfiguration.configPath
        var settings = RouteSettings()
        var mistakes: [(message: String, fix: String)] = []
        do {
            if let file = try KeyFile.load(path) {
                settings.handler = Handoff.handlerValue(file)
                if let text = file.string("route", "policy") {
                    let value = text.trimmingSpaces()
                    if let policy = LinkPolicy(rawValue: value) {
                        settings.policy = policy
                    } else {
                        mistakes.append(("\(path): policy=\(value.visible) in [route] is not ask, direct or handoff",
                                         "set policy= to ask, direct or handoff in [route] of \(path)"))
                    }
                }
                if let text = file.string("route", "consent-timeout") {
                    let value = text.trimmingSpaces()
                    if let seconds = Int(value), seconds > 0, seconds <= 3600 {
                        settings.consentTimeout = Double(seconds)
                    } else {
                        mistakes.append(("\(path): consent-timeout=\(value.visible) in [route] is not a number of seconds from 1 to 3600",
                                         "set consent-timeout= to a number of seconds from 1 to 3600 in [route] of \(path)"))
                    }
                }
            }
        } catch {
            mistakes.append((error.message, "edit \(path): \(error.message)"))
        }
        if let first = mistakes.first {
            settings.error = ConfigurationError(first.message)
            settings.fix = first.fix
            settings.policy = .handoff
        }
        return settings
    }
}
