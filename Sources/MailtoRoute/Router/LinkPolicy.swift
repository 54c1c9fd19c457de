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

    /// The configured policy, read now. A value that is not one of the three is a
    /// configuration error: guessing could send what the user meant to be asked about.
    public static func configured() throws(ConfigurationError) -> LinkPolicy {
        let path = AccountConfiguration.configPath
        let loaded: KeyFile?
        do { loaded = try KeyFile.load(path) } catch { throw ConfigurationError(error.message) }
        guard let file = loaded, let text = file.string("route", "policy") else { return .ask }
        let value = text.trimmingSpaces()
        guard let policy = LinkPolicy(rawValue: value) else {
            throw ConfigurationError("\(path): policy=\(value.visible) in [route] is not ask, direct or handoff")
        }
        return policy
    }
}
