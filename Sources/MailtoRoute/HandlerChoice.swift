import DesktopIntegration

/// Where a handoff goes.
enum HandoffTarget {
    case application(AppInfo)
    case webmail(Webmail.Service)
}

/// Choosing the program to hand off to, in the order of docs/design.md, never mailto-route
/// itself (rule 5: no loop).
enum HandlerChoice {
    static func choose(configured: String?, paths: Paths, warnings: inout [String]) throws -> HandoffTarget {
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
        if let previous = paths.registration.previousDefault, let app = AppInfo.named(previous), !app.isMailtoRoute {
            return .application(app)
        }
        if let app = Handlers.candidates(forType: Handlers.mailtoType).first(where: { !$0.isMailtoRoute }) {
            return .application(app)
        }
        throw DesktopError(.permanent, tr("no mail program is set up: nothing but mailto-route handles mailto: links here; install one, "
                                          + "or set handler= in the [route] section of %@ (a desktop id, %@)",
                                          paths.configFile, Webmail.Known.choices))
    }
}

extension Handoff {
    /// Every mail program and webmail service a handoff can start now, as the chooser offers
    /// them: GIO's `mailto:` programs, the default first, each whose program is installed (a
    /// `Terminal=true` one only with a terminal emulator to run it in, found as its launch
    /// finds it: `Launcher.plan`), never mailto-route itself (rule 5); then, with a web
    /// browser (`x-scheme-handler/https`), the webmail template `handler` names and the
    /// known services.
    static func ways(configured handler: String?) -> [Way] {
        guard (try? Handlers.checkGIO()) != nil else { return [] }
        var ways: [Way] = []
        let (variable, emulator) = TerminalEmulator.fromEnvironment()
        let defaultID = Handlers.defaultForScheme("mailto")?.id
        let apps = Handlers.candidates(forType: Handlers.mailtoType)
        for app in apps.filter({ $0.id == defaultID }) + apps.filter({ $0.id != defaultID }) where !app.isMailtoRoute {
            guard DesktopEntries.findProgram(app.executable) != nil else { continue }
            if app.needsTerminal, (try? Launcher.plan(app, command: nil, uris: ["mailto:"], onThisTerminal: false,
                                                        emulator: emulator, terminalVariable: variable)) == nil {
                continue
            }
            let id = app.id ?? app.executable
            ways.append(Way(kind: .program(id), name: app.name, origin: id, inTerminal: app.needsTerminal,
                            isSystemDefault: app.id != nil && app.id == defaultID))
        }
        guard let browser = Handlers.defaultForScheme("https") else { return ways }
        var services = Webmail.Known.allCases.map { Webmail.Service.known($0) }
        if let handler, handler.hasPrefix(Way.webmailPrefix),
           let named = try? Webmail.Service(handler: String(handler.dropFirst(Way.webmailPrefix.count))), !services.contains(named) {
            services.insert(named, at: 0)
        }
        ways += services.map { Way(kind: .webmail($0.rawValue), name: $0.name, origin: browser.name) }
        return ways
    }
}
