import DesktopIntegration
import SMTPTransport

extension CheckReport {
    /// One titled part of the readable report: label and value pairs.
    public struct Section: Sendable {
        public var title: String
        public var rows: [(label: String, value: String)]
    }

    /// The readable report, section by section; the command line aligns it.
    public var sections: [Section] {
        var result: [Section] = []
        var verdictRows = [("a click", verdict)]
        if let throughMailtoRoute { verdictRows.append(("mailto-route open", throughMailtoRoute)) }
        result.append(Section(title: "Verdict", rows: verdictRows))

        var handlerRows: [(String, String)] = []
        handlerRows.append(("GIO default", handler.gioDefault.map(describe) ?? "none"))
        if handler.gioDefault != nil { handlerRows.append(("set by", handler.setBy ?? "no mimeapps.list (GIO's first candidate)")) }
        let xdg = handler.xdgMime ?? "unknown (\(handler.xdgMimeProblem ?? "no answer"))"
        handlerRows.append(("xdg-mime", xdg + (handler.xdgMime == nil ? "" : handler.disagree ? " (disagrees with GIO)" : " (agrees)")))
        handlerRows.append(("mailto-route", (registration.registered ? "registered" : "not registered")
                            + (registration.isDefault ? ", the default" : ", not the default")))
        if let remembered = registration.remembered { handlerRows.append(("remembered", "\(remembered) (the default before register)")) }
        if let handoff {
            handlerRows.append(("hands off to", describe(handoff)))
        } else {
            handlerRows.append(("hands off to", "nothing: \(handoffProblem ?? "no mail program")"))
        }
        handlerRows.append(("other candidates", candidates.isEmpty ? "none" : candidates.map { "\($0.name) (\($0.id))" }.joined(separator: ", ")))
        result.append(Section(title: "Mail program", rows: handlerRows))

        var listRows: [(String, String)] = []
        for list in mimeapps.lists {
            var value = list.defaults.isEmpty ? "no mailto: default" : list.defaults.joined(separator: ";")
            if let desktop = list.desktop { value += " (\(desktop) only)" }
            if list.path == mimeapps.winner { value += " <- wins" }
            listRows.append((list.path, value))
        }
        if listRows.isEmpty { listRows.append(("none", "no mimeapps.list names a mailto: handler")) }
        for stale in mimeapps.stale { listRows.append(("stale", "\(stale.id): \(stale.program) does not exist (\(stale.file))")) }
        result.append(Section(title: "mimeapps.list files, in the order GIO reads them", rows: listRows))

        var sandboxRows = [
            ("Flatpak", sandbox.flatpak.map { "yes (\($0))" } ?? "no"),
            ("Snap", sandbox.snap.map { "yes (\($0))" } ?? "no"),
        ]
        sandboxRows.append(("email portal", portalText))
        result.append(Section(title: "Sandbox", rows: sandboxRows))

        result.append(Section(title: "Email portal backend", rows: emailBackendRows))
        result.append(Section(title: "Activation environment", rows: activationRows))
        result.append(Section(title: "Desktop service", rows: desktopServiceRows))

        var accountRows: [(String, String)] = []
        if let source = account.source {
            accountRows.append(("config", source + (account.error == nil ? " (valid)" : " (not usable)")))
            if let mode = account.mode { accountRows.append(("permissions", mode)) }
        } else {
            accountRows.append(("config", "none (\(configFile) or ~/.msmtprc)"))
        }
        if let error = account.error { accountRows.append(("error", error)) }
        if let from = account.from { accountRows.append(("from", from)) }
        if let server = account.server {
            accountRows.append(("server", "\(server), \(account.security ?? "?")" + (account.user.map { ", user \($0)" } ?? "")))
        }
        if let source = account.passwordSource {
            var text = source
            switch account.passwordAvailable {
            case true?: text += ": yields a password without a terminal"
            case false?: text += ": no password (\(account.passwordError ?? "?"))"
            case nil: text += source == "none" ? " (no login)" : ""
            }
            accountRows.append(("password", text))
        }
        accountRows.append(("live test", liveText))
        if let live, !live.capabilities.isEmpty { accountRows.append(("capabilities", live.capabilities.joined(separator: ", "))) }
        result.append(Section(title: "Account", rows: accountRows))

        var routeRows = [("policy", policy.error.map { "unreadable (\($0)); links are handed off" } ?? policy.value.rawValue)]
        routeRows.append(("consent", consentText))
        result.append(Section(title: "Links", rows: routeRows))

        let queuedText = outbox.pending == 1 ? "queued" : "oldest queued"
        var outboxRows = [("pending", String(outbox.pending) + (outbox.oldest.map { ", \(queuedText) \($0.iso8601)" } ?? ""))]
        if let last = outbox.lastError { outboxRows.append(("last error", last)) }
        outboxRows.append(("failed", String(outbox.failed)))
        if outbox.damaged > 0 { outboxRows.append(("damaged", String(outbox.damaged))) }
        outboxRows.append(("drafts", String(outbox.drafts)))
        if let error = outbox.error { outboxRows.append(("error", error)) }
        result.append(Section(title: "Outbox", rows: outboxRows))

        if !problems.isEmpty || !warnings.isEmpty {
            var rows: [(String, String)] = []
            for warning in warnings { rows.append(("warning", warning)) }
            for problem in problems {
                rows.append(("problem", problem.problem))
                rows.append(("fix", problem.fix))
            }
            result.append(Section(title: "To do", rows: rows))
        }
        return result
    }

    private func describe(_ program: Program) -> String {
        var text = "\(program.name) (\(program.id))"
        if !program.executable.isEmpty {
            text += program.executableExists ? ", runs \(program.executable)" : ", \(program.executable) does not exist"
        }
        if let runs = program.runs { text += " in a terminal: \(ExecLine.readable(runs))" }
        if let problem = program.problem { text += "; cannot be started: \(problem)" }
        return text
    }

    private var portalText: String {
        if let version = sandbox.portalVersion { return "present, version \(version)" }
        if let unknown = sandbox.portalUnknown { return "unknown (\(unknown))" }
        return "absent"
    }

    private var emailBackendRows: [(String, String)] {
        let email = emailBackend
        guard let executable = email.executable else {
            return [("xdg-desktop-portal", "not installed (none of \(EmailBackends.executables.joined(separator: ", ")))")]
        }
        guard let version = email.version else {
            return [("xdg-desktop-portal", "\(executable), version unknown (\(email.versionProblem ?? "?"))")]
        }
        var rows = [("xdg-desktop-portal", "\(version) (\(executable))")]
        let desktops = email.desktops.isEmpty ? "none" : email.desktops.joined(separator: ":")
        rows.append(("desktop", "\(desktops) (XDG_CURRENT_DESKTOP of \(email.desktopsFrom))"))
        if version.readsPortalsConf {
            rows.append(("rule", "portals.conf ([preferred]: the interface's key, else default=), then UseIn (deprecated); "
                         + "backends from \(email.portalsDirectory)"))
            rows.append(("portals.conf", email.config ?? "none"))
        } else {
            rows.append(("rule", "\(version) reads no portals.conf: backends from \(email.portalsDirectory) only, "
                         + "those whose UseIn names a desktop of XDG_CURRENT_DESKTOP first, then by file name"))
        }
        let offering = email.offering.map { "\($0.fileName) (UseIn=\(($0.useIn ?? []).joined(separator: ";")))" }
        rows.append(("offering Email", offering.isEmpty ? "none" : offering.joined(separator: ", ")))
        for rejected in email.rejected { rows.append(("skipped", "\(rejected.fileName): \(rejected.reason)")) }
        if let winner = email.winner {
            rows.append(("wins", "\(winner.fileName) (\(winner.dbusName)): \(email.how)"))
        } else {
            rows.append(("wins", "none: \(email.how)"))
        }
        rows.append(("mailto-route backend", email.mailtoRouteWins ? "is the Email backend" : "is not the Email backend"))
        for step in email.steps { rows.append(("to make it win", step)) }
        return rows
    }

    private var activationRows: [(String, String)] {
        var rows: [(String, String)] = []
        for name in Activation.variables { rows.append((name, activation.thisRun[name] ?? "unset")) }
        switch activation.bus {
        case .notAsked:
            rows.append(("D-Bus activation", "not asked (--offline)"))
        case .unknown(let reason):
            rows.append(("D-Bus activation", "unknown (\(reason))"))
        case .known(.busDaemon):
            rows.append(("D-Bus activation", "dbus-daemon's own environment (as it was started, plus what "
                         + "dbus-update-activation-environment sent it; it cannot be read back)"))
        case .known(.systemd):
            rows.append(("D-Bus activation", "systemd --user's environment (org.freedesktop.systemd1.Manager Environment)"))
            if activation.missing.isEmpty, activation.differing.isEmpty {
                rows.append(("there", "the same as this run"))
            }
            if !activation.missing.isEmpty { rows.append(("unset there", activation.missing.joined(separator: ", "))) }
            if !activation.differing.isEmpty { rows.append(("different there", activation.differing.joined(separator: ", "))) }
        }
        return rows
    }

    private var consentText: String {
        switch consent {
        case .terminal: return "on the terminal"
        case .notification(let server): return "with a notification from \(server)"
        case .unreachable(let reason): return "cannot be asked for a clicked link (\(reason))"
        }
    }

    private var liveText: String {
        guard let live else {
            return account.usable ? "not run (--offline)" : "not run (no usable account)"
        }
        var steps = [live.connected ? "connected" : "not connected"]
        if live.connected {
            steps.append(live.encrypted ? (account.security == "tls" ? "TLS" : "STARTTLS") : "no TLS")
            switch live.authenticated {
            case true?: steps.append("AUTH accepted")
            case false?: steps.append("AUTH refused")
            case nil: break
            }
        }
        var text = "\(live.server): " + steps.joined(separator: ", ") + " (\(live.milliseconds) ms)"
        if let error = live.error { text += ": \(error.message)" }
        return text
    }

    // MARK: - JSON

    /// The whole report as one object (`--json`). Each member is built by a function of
    /// its own: as one expression, the type checker took most of a minute over it.
    public var json: JSON {
        .object([
            ("verdict", verdictJSON), ("handler", handlerJSON), ("mimeapps", mimeappsJSON),
            ("registration", registrationJSON), ("handoff", handoff.map(Self.programJSON) ?? .object([("error", .string(handoffProblem))])),
            ("candidates", .array(candidates.map(Self.programJSON))), ("sandbox", sandboxJSON),
            ("emailBackend", emailBackendJSON), ("activation", activationJSON), ("desktopService", desktopServiceJSON),
            ("account", accountJSON), ("live", liveJSON), ("policy", policyJSON), ("consent", consentJSON),
            ("outbox", outboxJSON), ("drafts", .int(outbox.drafts)), ("warnings", .strings(warnings)), ("problems", problemsJSON),
        ])
    }

    private static func programJSON(_ value: Program) -> JSON {
        let runs: JSON = value.runs.map(JSON.strings) ?? .null
        return .object([("id", .string(value.id)), ("name", .string(value.name)),
                        ("executable", .string(value.executable)), ("executableExists", .bool(value.executableExists)),
                        ("runs", runs), ("problem", .string(value.problem))])
    }

    private static func optionalBool(_ value: Bool?) -> JSON { value.map(JSON.bool) ?? .null }

    private var verdictJSON: JSON {
        .object([
            ("sentence", .string(verdict)), ("throughMailtoRoute", .string(throughMailtoRoute)),
            ("decision", .string(decisionName)), ("works", .bool(works)), ("exitStatus", .int(Int(exitStatus))),
        ])
    }

    private var handlerJSON: JSON {
        let gioDefault: JSON = handler.gioDefault.map(Self.programJSON) ?? .null
        let all: [JSON] = mailPrograms.map { program in
            var members: [(String, JSON)] = [
                ("id", .string(program.id)), ("name", .string(program.name)), ("executable", .string(program.executable)),
                ("default", .bool(program.isDefault)), ("itself", .bool(program.isMailtoRoute)),
            ]
            switch program.packaging {
            case .native: members.append(("packaging", .string("native")))
            case .flatpak(let appID): members += [("packaging", .string("flatpak")), ("appId", .string(appID))]
            case .snap(let name): members += [("packaging", .string("snap")), ("snap", .string(name))]
            }
            return .object(members)
        }
        return .object([
            ("default", gioDefault), ("setBy", .string(handler.setBy)),
            ("xdgMime", .string(handler.xdgMime)), ("xdgMimeProblem", .string(handler.xdgMimeProblem)),
            ("disagree", .bool(handler.disagree)), ("all", .array(all)),
        ])
    }

    private var mimeappsJSON: JSON {
        let lists: [JSON] = mimeapps.lists.map { list in
            .object([("path", .string(list.path)), ("desktop", .string(list.desktop)),
                     ("defaults", .strings(list.defaults)), ("wins", .bool(list.path == mimeapps.winner))])
        }
        let overrides: [JSON] = mimeapps.overrides.map { .object([("path", .string($0.path)), ("handlers", .strings($0.handlers))]) }
        let stale: [JSON] = mimeapps.stale.map {
            .object([("id", .string($0.id)), ("file", .string($0.file)), ("program", .string($0.program))])
        }
        return .object([("lists", .array(lists)), ("winner", .string(mimeapps.winner)),
                        ("overrides", .array(overrides)), ("stale", .array(stale))])
    }

    private var registrationJSON: JSON {
        .object([
            ("registered", .bool(registration.registered)), ("isDefault", .bool(registration.isDefault)),
            ("desktopFile", .string(registration.desktopFile)), ("remembered", .string(registration.remembered)),
        ])
    }

    private var sandboxJSON: JSON {
        let portal = sandbox.portalVersion != nil ? "present" : sandbox.portalUnknown != nil ? "unknown" : "absent"
        let version: JSON = sandbox.portalVersion.map { .int(Int($0)) } ?? .null
        return .object([("flatpak", .string(sandbox.flatpak)), ("snap", .string(sandbox.snap)),
                        ("emailPortal", .string(portal)), ("emailPortalVersion", version)])
    }

    private var accountJSON: JSON {
        let password: JSON = .object([
            ("source", .string(account.passwordSource)), ("available", Self.optionalBool(account.passwordAvailable)),
            ("error", .string(account.passwordError)),
        ])
        return .object([
            ("configured", .bool(account.configured)), ("source", .string(account.source)),
            ("valid", .bool(account.configured && account.error == nil)), ("error", .string(account.error)),
            ("mode", .string(account.mode)), ("from", .string(account.from)), ("server", .string(account.server)),
            ("security", .string(account.security)), ("user", .string(account.user)), ("password", password),
        ])
    }

    private var liveJSON: JSON {
        guard let live else { return .null }
        let error: JSON = live.error.map { .object([("kind", .string($0.kind.rawValue)), ("message", .string($0.message))]) } ?? .null
        return .object([
            ("server", .string(live.server)), ("connected", .bool(live.connected)), ("tls", .bool(live.encrypted)),
            ("capabilities", .strings(live.capabilities)), ("authenticated", Self.optionalBool(live.authenticated)),
            ("error", error), ("milliseconds", .int(live.milliseconds)),
        ])
    }

    private var policyJSON: JSON {
        .object([("value", .string(policy.value.rawValue)), ("error", .string(policy.error))])
    }

    private var consentJSON: JSON {
        var members: [(String, JSON)]
        switch consent {
        case .terminal: members = [("click", .string("terminal"))]
        case .notification(let server): members = [("click", .string("notification")), ("server", .string(server))]
        case .unreachable(let reason): members = [("click", .string("unreachable")), ("reason", .string(reason))]
        }
        members.append(("terminal", .bool(hasTerminal)))
        return .object(members)
    }

    private var outboxJSON: JSON {
        .object([
            ("pending", .int(outbox.pending)), ("oldest", .string(outbox.oldest?.iso8601)),
            ("lastError", .string(outbox.lastError)), ("failed", .int(outbox.failed)), ("damaged", .int(outbox.damaged)),
            ("error", .string(outbox.error)),
        ])
    }

    private var problemsJSON: JSON {
        .array(problems.map {
            .object([("problem", .string($0.problem)), ("fix", .string($0.fix)), ("configuration", .bool($0.isConfiguration))])
        })
    }

    private var emailBackendJSON: JSON {
        let email = emailBackend
        func backend(_ value: PortalBackend) -> JSON {
            .object([("file", .string(value.fileName)), ("name", .string(value.name)), ("dbusName", .string(value.dbusName)),
                     ("useIn", value.useIn.map(JSON.strings) ?? .null)])
        }
        return .object([
            ("installed", .bool(email.executable != nil)), ("executable", .string(email.executable)),
            ("version", .string(email.version?.description)), ("versionProblem", .string(email.versionProblem)),
            ("directory", .string(email.executable == nil ? nil : email.portalsDirectory)),
            ("desktops", .strings(email.desktops)), ("desktopsFrom", .string(email.desktopsFrom)),
            ("config", .string(email.config)),
            ("offering", .array(email.offering.map(backend))),
            ("skipped", .array(email.rejected.map { .object([("file", .string($0.fileName)), ("reason", .string($0.reason))]) })),
            ("winner", email.winner.map(backend) ?? .null), ("how", .string(email.executable == nil ? nil : email.how)),
            ("mailtoRouteWins", .bool(email.mailtoRouteWins)), ("steps", .strings(email.steps)),
        ])
    }

    private var activationJSON: JSON {
        var bus: [(String, JSON)]
        switch activation.bus {
        case .notAsked: bus = [("source", .string("not asked"))]
        case .unknown(let reason): bus = [("source", .string("unknown")), ("reason", .string(reason))]
        case .known(.busDaemon): bus = [("source", .string("dbus-daemon"))]
        case .known(.systemd(let values)):
            bus = [("source", .string("systemd")),
                   ("environment", .object(Activation.variables.map { ($0, .string(values[$0])) }))]
        }
        return .object([
            ("thisRun", .object(Activation.variables.map { ($0, .string(activation.thisRun[$0])) })),
            ("bus", .object(bus)),
            ("missing", .strings(activation.missing)), ("differing", .strings(activation.differing)),
            ("fix", .string(activation.fix)),
        ])
    }

    /// The plan's name in the JSON report (kept as `check --json` has always named it).
    private var decisionName: String {
        switch decision {
        case .sheet: "sheetThenDirect"
        case .send: "direct"
        case .ask: "askThenDirect"
        case .handOff: "handoff"
        case .saveDraft: "draft"
        case .fail: "impossible"
        }
    }
}
