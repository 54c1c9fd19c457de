import DesktopIntegration

/// Where a handoff goes.
enum HandoffTarget {
    case application(AppInfo)
    case webmail(Webmail.Service)
}

/// Choosing the program to hand off to, in the order of docs/design.md, never mailto-route
/// itself (rule 5: no loop).
enum HandlerChoice {
    static func choose(configured: String?, warnings: inout [String]) throws -> HandoffTarget {
        // Without GIO every lookup below finds nothing: say why, not "no mail program".
        try Handlers.checkGIO()
        if let configured {
            if configured.hasPrefix("webmail:") {
                // A known service's name or a compose-URL template; Webmail says what is wrong.
                return .webmail(try Webmail.Service(handler: String(configured.dropFirst("webmail:".count))))
            }
            if let app = AppInfo.named(configured), !app.isMailtoRoute {
                return .application(app)
            }
            warnings.append(AppInfo.named(configured) == nil
                ? tr("configured handler %@ is not installed; using the default mail program", configured)
                : tr("configured handler %@ is mailto-route itself; using the default mail program", configured))
        }
        if let app = Handlers.defaultForScheme("mailto"), !app.isMailtoRoute {
            return .application(app)
        }
        if let previous = Registration.previousDefault, let app = AppInfo.named(previous), !app.isMailtoRoute {
            return .application(app)
        }
        if let app = Handlers.candidates(forType: Handlers.mailtoType).first(where: { !$0.isMailtoRoute }) {
            return .application(app)
        }
        throw DesktopError(.permanent, tr("no mail program is set up: nothing but mailto-route handles mailto: links here; install one, "
                                          + "or set handler= in the [route] section of %@ (a desktop id, %@)",
                                          XDGDirectories.configHome + "/mailto-route/config", Webmail.Known.choices))
    }
}
