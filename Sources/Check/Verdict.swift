import DesktopIntegration
import MailtoRoute
import Outbox
import SMTPTransport

/// The verdict of a check: `Plan.make` on the facts gathered, as one sentence, and each
/// problem with the step that fixes it.
enum Verdict {
    static func decide(_ report: inout CheckReport) {
        let account = report.account
        // The account as the configuration has it; its password, as the click's plan asks
        // for it: only where the plan sends.
        let state: Plan.AccountState = !account.configured ? .none
            : account.error.map { .unusable($0) } ?? .usable
        // The same function and the same inputs as a click (Session.plan).
        let always = report.always?.kept
        let decision = Plan.make(source: .link, forcedPath: nil, policy: report.policy.value, account: state,
                                 sheet: report.sheetCanShow, always: always, handler: report.handlerSetting != nil,
                                 ways: { Way.count(report.ways) },
                                 passwordProblem: { account.passwordError }) {
            report.handoff == nil ? report.handoffProblem ?? tr("no mail program") : nil
        }
        report.decision = decision
        let (sentence, works) = routeSentence(report, decision: decision)
        if report.registration.isDefault {
            report.verdict = sentence
            report.works = works
        } else if let direct = report.handler.gioDefault {
            report.verdict = direct.problem.map { tr("would not open %@: %@", direct.name, $0) }
                ?? tr("would open %@ directly: mailto-route is not the default mailto: handler", direct.name)
            report.throughMailtoRoute = sentence
            report.works = direct.startable
        } else {
            report.verdict = tr("nothing would open: no program handles mailto: links")
            report.throughMailtoRoute = sentence
            report.works = false
        }
        report.problems = problems(report)
        if let setting = report.alwaysSetting, report.always == nil {
            report.warnings.append(tr("always=%@ in [route] names a way that cannot be taken now; a click asks again (mailto-route route reset forgets it)", setting))
        }
        // A browser that keeps mailto: links: no click of it reaches any handler.
        report.warnings += report.browsers.compactMap(\.warning)
        for missing in report.emailBackend.missingBackends {
            let fix = missing.key == EmailBackends.interface && missing.name == "mailtoroute"
                ? tr("run mailto-route portal disable, or remove mailtoroute from that line")
                : tr("remove %@ from that line", missing.name)
            report.warnings.append(tr("%@= in %@ names %@, which has no .portal file: xdg-desktop-portal 1.17.0 to 1.19.0 crash at "
                + "start-up on that (their issue 1455), taking every portal down; %@", missing.key, report.emailBackend.config ?? "?",
                                      missing.name, fix))
        }
        if report.desktopService.onWayland, report.desktopService.wlCopy == nil {
            report.warnings.append(tr("on Wayland the compositor gives the clipboard only to the window with the keyboard focus: "
                + "Copy Address asked from a terminal, kept with Always or chosen in the chooser needs wl-copy, which is not "
                + "installed; install wl-clipboard"))
        }
        if report.policy.value == .direct, account.usable {
            report.warnings.append(
                tr("policy=direct lets any clicked link send mail without asking; set policy=ask in [route] of %@ to be asked", report.configFile))
        }
    }

    /// What mailto-route does with a clicked link, and whether that reaches a working path.
    static func routeSentence(_ report: CheckReport, decision: Plan) -> (String, Bool) {
        let account = report.account
        let server = account.server ?? "?"
        let from = account.fromAddress ?? "?"
        let liveWorks = report.live?.succeeded ?? true
        let untested = report.live?.error.map { tr("; but the live test failed: %@", $0.message) } ?? ""
        switch decision {
        case .choose:
            // The chooser: each way that can start, once or for good.
            let ways = report.ways.map { way in
                switch way.kind {
                case .account: tr("send from %@", way.name)
                case .program, .webmail: tr("open in %@", way.name)
                case .copyAddress: tr("copy the address")
                case .setUp: tr("set up sending")
                }
            }
            return (tr("would ask how to send it, just this once or always: ") + ways.joined(separator: "; "), true)
        case .sheet:
            // The sheet is the question: nothing leaves before its Send (rule 1).
            guard account.usable else {
                return (tr("would open the compose sheet, but Send cannot work there: %@", account.error ?? account.passwordError ?? "?"),
                        false)
            }
            return (tr("would open the compose sheet, and send through %@ as %@ when you press Send", server, from) + untested, liveWorks)
        case .send:
            return (tr("would send through %@ as %@ without asking (policy=direct)", server, from) + untested, liveWorks)
        case .ask(let otherwise):
            if case .unreachable(let reason) = report.consent {
                // Rule 1: no consent, no send: the plan's fallback is taken.
                switch otherwise {
                case .handOff:
                    let handoff = report.handoff
                    if let problem = handoff?.problem {
                        return (tr("would save a draft: consent to send cannot be asked (%@), and %@", reason, problem), false)
                    }
                    return (tr("would open %@: consent to send cannot be asked (%@)", handoff?.name ?? tr("the mail program"), reason),
                            handoff?.executableExists ?? false)
                case .saveDraft:
                    return (tr("would save a draft: consent to send cannot be asked (%@), and there is no mail program", reason), false)
                }
            }
            return (tr("would ask, then send through %@ as %@", server, from) + untested, liveWorks)
        case .handOff:
            let handoff = report.handoff
            let policy = report.policy.error == nil ? "policy=handoff" : tr("until the mistake in [route] is fixed")
            let why = report.policy.value == .ask && report.always != nil
                ? " " + tr("(always, as chosen in the chooser; mailto-route route reset asks again)")
                : account.usable && report.policy.value == .handoff ? " (\(policy))" : ""
            // Context.handOff: a program that cannot be started leaves the message a draft.
            if let problem = handoff?.problem { return (tr("would save a draft: %@", problem), false) }
            return (tr("would open %@", handoff?.name ?? tr("the mail program")) + why, handoff?.executableExists ?? false)
        case .copy:
            return (tr("would copy its addresses to the clipboard (always, as chosen in the chooser; mailto-route route reset asks again)"),
                    true)
        case .saveDraft:
            if !account.configured { return (tr("would save a draft: no mail program and no account"), false) }
            return (tr("would save a draft: no mail program, and the account cannot send (%@)", account.error ?? account.passwordError ?? "?"), false)
        case .fail(_, let failure):
            return (tr("would fail: %@", failure.message), false)
        }
    }

    // MARK: - Problems

    static func problems(_ report: CheckReport) -> [CheckReport.Problem] {
        var found: [CheckReport.Problem] = []
        func add(_ problem: String, fix: String, configuration: Bool = false) {
            found.append(.init(problem: problem, fix: fix, isConfiguration: configuration))
        }
        let config = report.configFile
        let registration = report.registration
        if !registration.isDefault {
            let other = report.handler.gioDefault.map { "\($0.name) (\($0.id))" }
            if report.mimeapps.overrides.isEmpty {
                add(registration.registered
                        ? tr("mailto-route is installed, but %@ is the default mailto: handler", other ?? tr("nothing"))
                        : other.map { tr("mailto-route is not the mailto: handler: clicks go straight to %@", $0) }
                            ?? tr("mailto-route is not the mailto: handler: clicks go nowhere"),
                    fix: "mailto-route register")
            }
        }
        for override in report.mimeapps.overrides {
            add(tr("%@ names %@ for mailto: links and wins over mimeapps.list on this desktop", override.path, override.handlers.joined(separator: ";")),
                fix: tr("mailto-route register --force (or remove the x-scheme-handler/mailto line from %@)", override.path))
        }
        for stale in report.mimeapps.stale {
            add(tr("%@ (%@) is named as the default, but its program %@ does not exist, so GIO ignores it", stale.id, stale.file, stale.program),
                fix: tr("reinstall the program, or choose another: mailto-route register (or xdg-mime default "
                    + "OTHER.desktop x-scheme-handler/mailto)"))
        }
        if let handoff = report.handoff, !handoff.executableExists {
            add(tr("the mail program %@ (%@) cannot be started: %@ does not exist", handoff.name, handoff.id, handoff.executable),
                fix: tr("reinstall %@, or set handler= in [route] of %@", handoff.name, config))
        }
        if let handoff = report.handoff, let problem = handoff.problem {
            add(problem, fix: tr("install a terminal emulator (such as xterm), or set TERMINAL to the one you use; or "
                + "set handler= in [route] of %@ to a mail program that needs none", config))
        }
        if !registration.isDefault, let direct = report.handler.gioDefault, let problem = direct.problem {
            add(problem, fix: tr("mailto-route register (mailto-route also finds $TERMINAL and x-terminal-emulator), or install xterm"))
        }
        if report.handoff == nil {
            add(tr("no mail program to hand off to") + (report.account.configured ? "" : tr(", and no account: a click can only save a draft")),
                fix: tr("install a mail program (such as Thunderbird or Evolution), or set handler= in [route] of %@ "
                    + "(a desktop id, %@)", config, Webmail.Known.choices)
                    + (report.account.configured ? "" : tr("; or set up an account: mailto-route account add ADDRESS "
                        + "(or the sheet's Set Up Sending…)")))
        }
        if report.handler.disagree, let xdg = report.handler.xdgMime {
            let gio = report.handler.gioDefault?.id ?? tr("none")
            add(tr("xdg-mime names %@ as the mailto: handler, GIO names %@: programs that use xdg-open may open another program", xdg, gio),
                fix: "xdg-mime default \(gio == "none" ? "PROGRAM.desktop" : gio) x-scheme-handler/mailto")
        }
        accountProblems(report, config: config, add: add)
        if let error = report.policy.error {
            add(error, fix: report.policy.fix ?? tr("edit %@", config), configuration: true)
        }
        if case .ask = report.decision, case .unreachable(let reason) = report.consent {
            add(tr("consent to send cannot be asked for a clicked link (%@): links are handed off or saved, never sent", reason),
                fix: tr("run a notification server that shows buttons (GNOME Shell, KDE Plasma, dunst, mako), or set "
                    + "policy=handoff in [route] of %@", config))
        }
        let activation = report.activation
        if let fix = activation.fix {
            var parts: [String] = []
            if !activation.missing.isEmpty { parts.append(tr("%@ unset there", activation.missing.joined(separator: ", "))) }
            if !activation.differing.isEmpty { parts.append(tr("%@ different there", activation.differing.joined(separator: ", "))) }
            add(tr("a D-Bus-activated mailto-route (the desktop service, the Email portal backend) gets systemd "
                + "--user's environment, not this session's: ") + parts.joined(separator: "; "), fix: fix)
        }
        let outbox = report.outbox
        if outbox.pending > 0 {
            // One message is "it", waiting at "its" next attempt; more are "them": whole
            // sentences, one for each number as the language counts (ngettext).
            let n = outbox.pending
            var text = trn("%@ message waits in the outbox", "%@ messages wait in the outbox", n, n)
            if let oldest = outbox.oldest {
                text += " " + trn("(queued %@)", "(oldest queued %@)", n, oldest.iso8601)
            }
            if let last = outbox.lastError { text += "; " + tr("last error: %@", last) }
            if outbox.held > 0, let next = outbox.nextHeld {
                // Held by the user (Undo send, Send Later): sent at its time, by whoever
                // owns the outbox then; no flush sends it earlier.
                text += "; " + (outbox.held == n
                    ? trn("it is held until its time (%@), and sent then", "they are held until their time (the first %@), and sent then",
                          n, next.iso8601)
                    : trn("%@ of them is held until its time (%@), and sent then",
                          "%@ of them are held until their time (the first %@), and sent then", outbox.held, outbox.held, next.iso8601))
            }
            // Who keeps "it will be retried": the desktop service owns the outbox while it
            // runs; without it, nothing retries until a run queues again or flushes.
            if report.desktopService.running == true {
                text += "; " + trn("the desktop service retries it at its next attempt", "the desktop service retries them at their next attempt", n)
                add(text, fix: trn("nothing to do; mailto-route outbox flush sends it now", "nothing to do; mailto-route outbox flush sends them now", n))
            } else if report.desktopService.startsAtLogin, !report.desktopService.serviceFiles.isEmpty {
                text += "; " + trn("nothing retries it now (the desktop service does not run): it retries it from "
                    + "your next login, or from mailto-route's next send or click",
                                   "nothing retries them now (the desktop service does not run): it retries them from your next login, or from mailto-route's next send or click", n)
                add(text, fix: trn("mailto-route outbox flush sends it now", "mailto-route outbox flush sends them now", n))
            } else {
                text += "; " + trn("nothing retries it now (the desktop service does not run)", "nothing retries them now (the desktop service does not run)", n)
                add(text, fix: tr("mailto-route outbox flush, or enable the watcher: systemctl --user enable --now mailto-route-outbox.service"))
            }
        }
        if outbox.failed > 0 {
            add(trn("%@ message in the outbox failed for good", "%@ messages in the outbox failed for good", outbox.failed, outbox.failed),
                fix: tr("mailto-route outbox list, then mailto-route outbox retry ID (or drop ID)"))
        }
        if outbox.damaged > 0 {
            add(trn("%@ outbox entry is damaged and never sent", "%@ outbox entries are damaged and never sent", outbox.damaged, outbox.damaged),
                fix: tr("mailto-route outbox list --json names them; move them out of the outbox directory"))
        }
        if let error = outbox.error {
            add(tr("the outbox or the drafts cannot be read: %@", error), fix: tr("check the permissions of %@", report.stateDirectory))
        }
        return found
    }

    static func accountProblems(_ report: CheckReport, config: String, add: (String, String, Bool) -> Void) {
        let account = report.account
        let source = account.source ?? config
        if let error = account.error {
            // Account.checkPrivate's refusal, as this run says it.
            let fix = error.contains(tr("others can read")) ? "chmod 600 \(source)" : tr("edit %@: %@", source, error)
            add(error, fix, true)
        }
        if let error = account.passwordError, account.passwordSource?.hasPrefix("goa") == true {
            // GNOME Online Accounts' own: mended by signing in again there, not in a file.
            add(error, tr("sign in again in Settings, Online Accounts (gnome-control-center online-accounts); meanwhile messages wait in the outbox"),
                false)
        } else if let error = account.passwordError {
            let host = account.server.map { String($0.prefix { $0 != ":" }) } ?? "HOST"
            let fix = account.passwordSource == "secret-service"
                ? tr("store the password: secret-tool store --label=mailto-route host %@ service smtp user %@", host, account.user ?? "USER")
                : tr("make password-command in %@ print the password without a terminal (for example: secret-tool "
                    + "lookup host %@ service smtp user %@)", source, host, account.user ?? "USER")
            add(error, fix, true)
        }
        if let live = report.live, let error = live.error {
            let fix: String
            if live.authenticated == false {
                fix = tr("check user= and the password of %@", source)
            } else if error.kind == .configuration {
                fix = tr("check security=, port= and ca-file= in %@", source)
            } else {
                fix = tr("check host= and port= in %@ and the network; meanwhile messages wait in the outbox", source)
            }
            add(tr("live test of %@ failed: %@", live.server, error.message), fix, error.kind == .configuration)
        }
    }
}
