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

    public init() {}

    /// Reads `policy=`, `consent-timeout=` and `handler=`. A value that is not one of the allowed is a
    /// configuration error: guessing could send what the user meant to be asked about.
    public static func configured() throws(ConfigurationError) -> RouteSettings {
        let path = AccountConfiguration.configPath
        let loaded: KeyFile?
        do { loaded = try KeyFile.load(path) } catch { throw ConfigurationError(error.message) }
        var settings = RouteSettings()
        guard let file = loaded else { return settings }
        if let text = file.string("route", "policy") {
            let value = text.trimmingSpaces()
            guard let policy = LinkPolicy(rawValue: value) else {
                throw ConfigurationError("\(path): policy=\(value.visible) in [route] is not ask, direct or handoff")
            }
            settings.policy = policy
        }
        settings.handler = Handoff.handlerValue(file)
        if let text = file.string("route", "consent-timeout") {
            let value = text.trimmingSpaces()
            guard let seconds = Int(value), seconds > 0, seconds <= 3600 else {
                throw ConfigurationError("\(path): consent-timeout=\(value.visible) in [route] is not a number of seconds from 1 to 3600")
            }
            settings.consentTimeout = Double(seconds)
        }
        return settings
    }
}
