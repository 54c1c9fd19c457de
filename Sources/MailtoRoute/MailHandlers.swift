public import DesktopIntegration

/// One program that handles `mailto:` links, as `--check` and the report describe it.
public struct MailHandler: Equatable, Sendable {
    /// The desktop id, such as `thunderbird.desktop`.
    public var id: String
    public var name: String
    /// The first word of its `Exec=`.
    public var executable: String
    public var packaging: Packaging
    /// GIO's default for `x-scheme-handler/mailto`.
    public var isDefault: Bool
    /// mailto-route itself, which a handoff never picks.
    public var isMailtoRoute: Bool
}

public enum MailHandlers {
    /// Every program that handles `mailto:` links, as GIO lists them: the default first,
    /// then the recommended ones, then all others.
    public static func all() -> [MailHandler] {
        let defaultID = Handlers.defaultForScheme("mailto")?.id
        let candidates = Handlers.candidates(forType: Handlers.mailtoType)
        let ordered = candidates.filter { $0.id == defaultID } + candidates.filter { $0.id != defaultID }
        return ordered.map { app in
            MailHandler(
                id: app.id ?? app.executable, name: app.name, executable: app.executable,
                packaging: app.packaging, isDefault: app.id == defaultID, isMailtoRoute: app.isMailtoRoute
            )
        }
    }
}
