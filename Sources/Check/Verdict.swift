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
                                 sheet: report.sheetCanShow, always: always, ways: { Way.count(report.ways) },
                                 passwordProblem: { account.passwordError }) {
            report.handoff == nil ? report.handoffProblem ?? "no mail program" : nil
        }
        report.decision = decision
        let (sentence, works) = routeSentence(report, decision: decision)
        if report.registration.isDefault {
            report.verdict = sentence
            report.works = works
        } else if let direct = report.handler.gioDefault {
            report.verdict = direct.problem.map { "would not open \(direct.name): \($0)" }
                ?? "would open \(direct.name) directly: mailto-route is not the default mailto: handler"
            report.throughMailtoRoute = sentence
            report.works = direct.startable
        } else {
            report.verdict = "nothing would open: no program handles mailto: links"
            report.throughMailtoRoute = sentence
            report.works = false
        }
        report.problems = problems(report)
        if let setting = report.alwaysSetting, report.always == nil {
            report.warnings.append("always=\(setting) in [route] names a way that cannot be taken now; a click asks again (mailto-route route reset forgets it)")
        }
        if report.policy.value == .direct, account.usable {
            report.warnings.append(
                "policy=direct lets any clicked link send mail without asking; set policy=ask in [route] of \(report.configFile) to be asked")
        }
    }

    /// What mailto-route does with a clicked link, and whether that reaches a working path.
    static func routeSentence(_ report: CheckReport, decision: Plan) -> (String, Bool) {
        let account = report.account
        let server = account.server ?? "?"
        let from = account.fromAddress ?? "?"
        let liveWorks = report.live?.succeeded ?? true
        let untested = report.live?.error.map { "; but the live test failed: \($0.message)" } ?? ""
        switch decision {
        case .choose:
            // The chooser: each way that can start, once or for good.
            let ways = report.ways.map { way in
                switch way.kind {
                case .account: "send from \(way.name)"
                case .program, .webmail: "open in \(way.name)"
                case .setUp: "set up sending"
                }
            }
            return ("would ask how to send it, just this once or always: " + ways.joined(separator: "; "), true)
        case .sheet:
            // The sheet is the question: nothing leaves before its Send (rule 1).
            guard account.usable else {
                return ("would open the compose sheet, but Send cannot work there: \(account.error ?? account.passwordError ?? "?")",
                        false)
            }
            return ("would open the compose sheet, and send through \(server) as \(from) when you press Send" + untested, liveWorks)
        case .send:
            return ("would send through \(server) as \(from) without asking (policy=direct)" + untested, liveWorks)
        case .ask(let otherwise):
            if case .unreachable(let reason) = report.consent {
                // Rule 1: no consent, no send: the plan's fallback is taken.
                switch otherwise {
                case .handOff:
                    let handoff = report.handoff
                    if let problem = handoff?.problem {
                        return ("would save a draft: consent to send cannot be asked (\(reason)), and \(problem)", false)
                    }
                    return ("would open \(handoff?.name ?? "the mail program"): consent to send cannot be asked (\(reason))",
                            handoff?.executableExists ?? false)
                case .saveDraft:
                    return ("would save a draft: consent to send cannot be asked (\(reason)), and there is no mail program", false)
                }
            }
            return ("would ask, then send through \(server) as \(from)" + untested, liveWorks)
        case .handOff:
            let handoff = report.handoff
            let policy = report.policy.error == nil ? "policy=handoff" : "until the mistake in [route] is fixed"
            let why = report.policy.value == .ask && report.always != nil
                ? " (always, as chosen in the chooser; mailto-route route reset asks again)"
                : account.usable && report.policy.value == .handoff ? " (\(policy))" : ""
            // Context.handOff: a program that cannot be started leaves the message a draft.
            if let problem = handoff?.problem { return ("would save a draft: \(problem)", false) }
            return ("would open \(handoff?.name ?? "the mail program")" + why, handoff?.executableExists ?? false)
        case .saveDraft:
            if !account.configured { return ("would save a draft: no mail program and no account", false) }
            return ("would save a draft: no mail program, and the account cannot send (\(account.error ?? account.passwordError ?? "?"))", false)
        case .fail(_, let failure):
            return ("would fail: \(failure.message)", false)
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
                        ? "mailto-route is installed, but \(other ?? "nothing") is the default mailto: handler"
                        : "mailto-route is not the mailto: handler: clicks go " + (other.map { "straight to \($0)" } ?? "nowhere"),
                    fix: "mailto-route register")
            }
        }
        for override in report.mimeapps.overrides {
            add("\(override.path) names \(override.handlers.joined(separator: ";")) for mailto: links and wins over mimeapps.list on this desktop",
                fix: "mailto-route register --force (or remove the x-scheme-handler/mailto line from \(override.path))")
        }
        for stale in report.mimeapps.stale {
            add("\(stale.id) (\(stale.file)) is named as the default, but its program \(stale.program) does not exist, so GIO ignores it",
                fix: "reinstall the program, or choose another: mailto-route register (or xdg-mime default OTHER.desktop x-scheme-handler/mailto)")
        }
        if let handoff = report.handoff, !handoff.executableExists {
            add("the mail program \(handoff.name) (\(handoff.id)) cannot be started: \(handoff.executable) does not exist",
                fix: "reinstall \(handoff.name), or set handler= in [route] of \(config)")
        }
        if let handoff = report.handoff, let problem = handoff.problem {
            add(problem, fix: "install a terminal emulator (such as xterm), or set TERMINAL to the one you use; "
                + "or set handler= in [route] of \(config) to a mail program that needs none")
        }
        if !registration.isDefault, let direct = report.handler.gioDefault, let problem = direct.problem {
            add(problem, fix: "mailto-route register (mailto-route also finds $TERMINAL and x-terminal-emulator), or install xterm")
        }
        if report.handoff == nil {
            add("no mail program to hand off to" + (report.account.configured ? "" : ", and no account: a click can only save a draft"),
                fix: "install a mail program (such as Thunderbird or Evolution), or set handler= in [route] of \(config) "
                    + "(a desktop id, \(Webmail.Known.choices))"
                    + (report.account.configured ? "" : "; or set up an account: mailto-route account add ADDRESS "
                        + "(or the sheet's Set Up Sending…)"))
        }
        if report.handler.disagree, let xdg = report.handler.xdgMime {
            let gio = report.handler.gioDefault?.id ?? "none"
            add("xdg-mime names \(xdg) as the mailto: handler, GIO names \(gio): programs that use xdg-open may open another program",
                fix: "xdg-mime default \(gio == "none" ? "PROGRAM.desktop" : gio) x-scheme-handler/mailto")
        }
        accountProblems(report, config: config, add: add)
        if let error = report.policy.error {
            add(error, fix: report.policy.fix ?? "edit \(config)", configuration: true)
        }
        if case .ask = report.decision, case .unreachable(let reason) = report.consent {
            add("consent to send cannot be asked for a clicked link (\(reason)): links are handed off or saved, never sent",
                fix: "run a notification server that shows buttons (GNOME Shell, KDE Plasma, dunst, mako), or set policy=handoff in [route] of \(config)")
        }
        let activation = report.activation
        if let fix = activation.fix {
            var parts: [String] = []
            if !activation.missing.isEmpty { parts.append("\(activation.missing.joined(separator: ", ")) unset there") }
            if !activation.differing.isEmpty { parts.append("\(activation.differing.joined(separator: ", ")) different there") }
            add("a D-Bus-activated mailto-route (the desktop service, the Email portal backend) gets systemd --user's environment, "
                + "not this session's: " + parts.joined(separator: "; "), fix: fix)
        }
        let outbox = report.outbox
        if outbox.pending > 0 {
            // One message is "it", waiting at "its" next attempt; more are "them".
            let one = outbox.pending == 1
            let (them, their) = one ? ("it", "its") : ("them", "their")
            var text = one ? "1 message waits in the outbox" : "\(outbox.pending) messages wait in the outbox"
            if let oldest = outbox.oldest { text += " (\(one ? "queued" : "oldest queued") \(oldest.iso8601))" }
            if let last = outbox.lastError { text += "; last error: \(last)" }
            // Who keeps "it will be retried": the desktop service owns the outbox while it
            // runs; without it, nothing retries until a run queues again or flushes.
            if report.desktopService.running == true {
                text += "; the desktop service retries \(them) at \(their) next attempt"
                add(text, fix: "nothing to do; mailto-route outbox flush sends \(them) now")
            } else if report.desktopService.startsAtLogin, !report.desktopService.serviceFiles.isEmpty {
                text += "; nothing retries \(them) now (the desktop service does not run): it retries \(them) from your next login, "
                    + "or from mailto-route's next send or click"
                add(text, fix: "mailto-route outbox flush sends \(them) now")
            } else {
                text += "; nothing retries \(them) now (the desktop service does not run)"
                add(text, fix: "mailto-route outbox flush, or enable the watcher: systemctl --user enable --now mailto-route-outbox.service")
            }
        }
        if outbox.failed > 0 {
            add("\(outbox.failed) message\(outbox.failed == 1 ? "" : "s") in the outbox failed for good",
                fix: "mailto-route outbox list, then mailto-route outbox retry ID (or drop ID)")
        }
        if outbox.damaged > 0 {
            add("\(outbox.damaged) outbox entr\(outbox.damaged == 1 ? "y is" : "ies are") damaged and never sent",
                fix: "mailto-route outbox list --json names them; move them out of the outbox directory")
        }
        if let error = outbox.error {
            add("the outbox or the drafts cannot be read: \(error)", fix: "check the permissions of \(report.stateDirectory)")
        }
        return found
    }

    static func accountProblems(_ report: CheckReport, config: String, add: (String, String, Bool) -> Void) {
        let account = report.account
        let source = account.source ?? config
        if let error = account.error {
            let fix = error.contains("others can read") ? "chmod 600 \(source)" : "edit \(source): \(error)"
            add(error, fix, true)
        }
        if let error = account.passwordError, account.passwordSource?.hasPrefix("goa") == true {
            // GNOME Online Accounts' own: mended by signing in again there, not in a file.
            add(error, "sign in again in Settings, Online Accounts (gnome-control-center online-accounts); meanwhile messages wait in the outbox",
                false)
        } else if let error = account.passwordError {
            let host = account.server.map { String($0.prefix { $0 != ":" }) } ?? "HOST"
            let fix = account.passwordSource == "secret-service"
                ? "store the password: secret-tool store --label=mailto-route host \(host) service smtp user \(account.user ?? "USER")"
                : "make password-command in \(source) print the password without a terminal "
                    + "(for example: secret-tool lookup host \(host) service smtp user \(account.user ?? "USER"))"
            add(error, fix, true)
        }
        if let live = report.live, let error = live.error {
            let fix: String
            if live.authenticated == false {
                fix = "check user= and the password of \(source)"
            } else if error.kind == .configuration {
                fix = "check security=, port= and ca-file= in \(source)"
            } else {
                fix = "check host= and port= in \(source) and the network; meanwhile messages wait in the outbox"
            }
            add("live test of \(live.server) failed: \(error.message)", fix, error.kind == .configuration)
        }
    }
}
