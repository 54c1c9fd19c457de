#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import SMTPTransport

/// `mailto-route --check`: what a click on a `mailto:` link would do right now, read from
/// the same session and decided by the same `Plan` as a real click, so that the check and
/// the click never disagree.
public enum Check {
    /// The whole time a check may take, live test included (within 5 s also when
    /// the server cannot be reached).
    static let budgetMilliseconds = 4000
    /// A password-command gets this long here: one that waits for a person (a prompt)
    /// would make every click wait too, and is reported as such.
    static let passwordCommandSeconds = 1.5
    /// Each D-Bus step (connect, one call) of the consent and portal questions.
    static let busSeconds = 0.5
    /// `xdg-mime` runs alongside everything else; it is waited for at most this long.
    static let xdgMimeMilliseconds = 2000

    /// Gathers every fact, then the verdict. `offline`: no live test of the server.
    public static func run(_ session: Session, offline: Bool) -> CheckReport {
        let started = MonotonicClock.milliseconds
        // A shell script of some 50 ms: started first, collected last.
        let xdgMime = DesktopEntries.findProgram("xdg-mime").flatMap {
            try? Subprocess([$0, "query", "default", Handlers.mailtoType])
        }
        // The portal's --version, alongside everything else too.
        let portal = EmailBackends.findPortal()
        let portalVersion = portal.map { executable in Result { () throws(SubprocessError) in try Subprocess([executable, "--version"]) } }

        var report = CheckReport(
            handler: .init(gioDefault: nil, setBy: nil, xdgMime: nil, xdgMimeProblem: nil),
            mimeapps: .init(lists: [], winner: nil, overrides: [], stale: []),
            registration: .init(registered: false, isDefault: false, desktopFile: Registration.desktopFilePath, remembered: nil),
            handoff: nil, handoffProblem: nil, candidates: [], sandbox: sandboxFacts(),
            account: .init(), live: nil, policy: .init(value: .ask, error: nil),
            consent: .unreachable("not asked"), hasTerminal: hasTerminal(), outbox: outboxFacts(session.storage),
            decision: .saveDraft(reason: nil), verdict: "", throughMailtoRoute: nil, works: false, problems: [], warnings: [])

        // The [route] group as a click reads it: the policy and the handler= it keeps also
        // when the group has a mistake.
        let settings = session.routeSettings
        report.policy = .init(value: settings.policy, error: settings.error?.message, fix: settings.fix)
        report.configFile = session.paths.configFile
        report.stateDirectory = session.storage.stateDirectory
        gatherHandlers(into: &report, session: session)
        let server = gatherAccount(into: &report, session: session)
        report.consent = consentReach(callTimeout: busSeconds, includingTerminal: false)
        // The click's own input to its plan, on this run's facts.
        report.sheetCanShow = session.canShowSheet
        do {
            report.sandbox.portalVersion = try EmailPortal.version(callTimeout: busSeconds)
        } catch {
            report.sandbox.portalUnknown = error.message
        }
        report.activation = activationFacts(askingTheBus: !offline)
        report.desktopService = desktopServiceFacts(askingTheBus: !offline)
        report.emailBackend = emailBackendFacts(portal, portalVersion, activation: report.activation)
        if !offline, let usable = server {
            let left = budgetMilliseconds - (MonotonicClock.milliseconds - started)
            report.live = SMTPSubmission.probe(usable, within: max(1000, left))
        }
        if let xdgMime {
            let finished = xdgMime.finish(within: xdgMimeMilliseconds)
            let answer = String(decoding: finished.output, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init)
            if finished.status == 0, let answer, !answer.isEmpty {
                report.handler.xdgMime = answer
            } else {
                report.handler.xdgMimeProblem = finished.timedOut ? "no answer within \(xdgMimeMilliseconds) ms"
                    : finished.status == 0 ? "no default" : "failed: \(finished.errorText)"
            }
        } else {
            report.handler.xdgMimeProblem = "xdg-mime is not installed"
        }
        Verdict.decide(&report)
        return report
    }

    // MARK: - Handlers

    static func gatherHandlers(into report: inout CheckReport, session: Session) {
        let type = Handlers.mailtoType
        report.mailPrograms = MailHandlers.all()
        if let app = Handlers.defaultForScheme("mailto") {
            report.handler.gioDefault = program(app)
            report.registration.isDefault = app.isMailtoRoute
        }
        let lists = Mimeapps.lists(for: type)
        report.mimeapps.lists = lists
        // The mime-apps spec: the first list that names an installed program sets the default.
        report.mimeapps.winner = lists.first { $0.defaults.contains { AppInfo.named($0) != nil } }?.path
        if let gioDefault = report.handler.gioDefault {
            report.handler.setBy = lists.first { $0.defaults.contains(gioDefault.id) }?.path
        }
        var seen = Set<String>()
        for list in lists {
            for id in list.defaults where AppInfo.named(id) == nil && seen.insert(id).inserted {
                guard let file = DesktopEntries.locate(id) else { continue }
                report.mimeapps.stale.append(.init(id: id, file: file, program: DesktopEntries.program(ofFile: file) ?? "?"))
            }
        }
        let userList = lists.first { $0.path == Mimeapps.userListPath }
        if let choice = userList?.defaults.first {
            report.mimeapps.overrides = Mimeapps.overrides(for: type, expected: choice)
        }
        report.registration.registered = access(Registration.desktopFilePath, F_OK) == 0
        report.registration.remembered = Registration.previousDefault
        switch session.destination() {
        case .success(let target):
            if target.id.hasPrefix("webmail:") {
                report.handoff = .init(id: target.id, name: target.name, executable: "", executableExists: true)
            } else if let app = AppInfo.named(target.id) {
                report.handoff = program(app)
                if app.needsTerminal { report.handoff?.describeTerminalLaunch(of: app) }
            } else {
                report.handoff = .init(id: target.id, name: target.name, executable: "", executableExists: false)
            }
        case .failure(let failure):
            report.handoffProblem = failure.message
        }
        if let gioDefault = Handlers.defaultForScheme("mailto"), gioDefault.needsTerminal,
           !gioDefault.isMailtoRoute, !GIOTerminals.anyInstalled {
            report.handler.gioDefault?.problem = GIOTerminals.problem(gioDefault)
        }
        report.candidates = Handlers.candidates(forType: type)
            .filter { !$0.isMailtoRoute && ($0.id ?? $0.executable) != report.handoff?.id }
            .map(program)
    }

    static func program(_ app: AppInfo) -> CheckReport.Program {
        let executable = app.executable
        return .init(id: app.id ?? executable, name: app.name, executable: executable,
                     executableExists: DesktopEntries.findProgram(executable) != nil)
    }

    // MARK: - Account

    /// Fills in the account; returns its server with the password when it is usable,
    /// for the live test (the password goes no further).
    static func gatherAccount(into report: inout CheckReport, session: Session) -> SMTPServer? {
        let configuration = session.configuration
        if let file = configuration.accountFile {
            report.account.mode = String(file.mode & 0o777, radix: 8)
        }
        let account: Account
        switch configuration.account {
        case nil:
            return nil
        case .failure(let mistake)?:
            report.account.error = mistake.message
            report.account.source = configuration.accountFile?.path ?? configuration.configFile?.path
            return nil
        case .success(let loaded)?:
            account = loaded
        }
        report.account.source = account.source
        report.account.from = account.from.readable
        report.account.fromAddress = account.from.address
        report.account.server = account.server.address
        report.account.security = account.server.security.rawValue
        report.account.user = account.server.user
        switch account.password {
        case .command: report.account.passwordSource = "password-command"
        case .inline: report.account.passwordSource = "password="
        case .none: report.account.passwordSource = account.server.user == nil ? "none" : "secret-service"
        }
        do {
            session.passwordCommandTimeout = passwordCommandSeconds
            // A check never pops up a prompt: it says the keyring is locked.
            session.passwordMayPrompt = false
            let server = try session.server()
            if account.server.user != nil { report.account.passwordAvailable = true }
            return server
        } catch {
            report.account.passwordAvailable = false
            report.account.passwordError = error.message
            return nil
        }
    }

    // MARK: - Activation environment, Email backend

    /// This run's values of the variables that matter for a handoff and the service, and,
    /// unless `--offline` (no bus call), where a D-Bus-activated process gets its own.
    static func activationFacts(askingTheBus: Bool) -> CheckReport.Activation {
        var facts = CheckReport.Activation()
        for name in CheckReport.Activation.variables {
            if let value = getenv(name).map({ String(cString: $0) }) { facts.thisRun[name] = value }
        }
        if askingTheBus {
            do {
                facts.bus = .known(try ActivationEnvironment.read(callTimeout: busSeconds))
            } catch {
                facts.bus = .unknown(error.message)
            }
        }
        facts.compare()
        return facts
    }

    /// The Email backend by the installed portal's rule. The portal is started by D-Bus
    /// activation, so with systemd --user the desktop it sees is the user manager's.
    static func emailBackendFacts(
        _ portal: String?, _ version: Result<Subprocess, SubprocessError>?, activation: CheckReport.Activation
    ) -> CheckReport.EmailBackend {
        var output: String?
        var problem: String?
        switch version {
        case .success(let running)?:
            let finished = running.finish(within: EmailBackends.versionMilliseconds)
            if finished.status == 0 {
                output = String(decoding: finished.output, as: UTF8.self)
            } else {
                problem = finished.timedOut ? "--version gave no answer within \(EmailBackends.versionMilliseconds) ms"
                    : "--version failed: \(finished.errorText)"
            }
        case .failure(let failure)?:
            problem = "cannot be started: \(failure.message)"
        case nil:
            break
        }
        var desktop = activation.thisRun["XDG_CURRENT_DESKTOP"]
        var from = "this run"
        if let systemd = activation.systemd {
            desktop = systemd["XDG_CURRENT_DESKTOP"]
            from = "systemd --user's environment, which the portal is started with"
        }
        let environment = PortalEnvironment(
            portalDirectory: getenv("XDG_DESKTOP_PORTAL_DIR").map { String(cString: $0) }, currentDesktop: desktop,
            configHome: XDGDirectories.configHome, configDirs: XDGDirectories.configDirs,
            dataHome: XDGDirectories.dataHome, dataDirs: XDGDirectories.dataDirs)
        return EmailBackends.gather(executable: portal, versionOutput: output, versionProblem: problem,
                                    environment: environment, desktopsFrom: from)
    }

    // MARK: - Sandbox, outbox

    static func sandboxFacts() -> CheckReport.Sandbox {
        var facts = CheckReport.Sandbox()
        if access("/.flatpak-info", F_OK) == 0 {
            let name = (try? KeyFile.load("/.flatpak-info"))??.string("Application", "name")
            facts.flatpak = name ?? "unknown application"
        }
        if let snap = getenv("SNAP").map({ String(cString: $0) }) {
            facts.snap = getenv("SNAP_NAME").map { String(cString: $0) } ?? snap
        }
        return facts
    }

    static func outboxFacts(_ storage: StorageLocations) -> CheckReport.OutboxFacts {
        var facts = CheckReport.OutboxFacts()
        do {
            let pending = try storage.outbox.list()
            facts.pending = pending.count
            facts.oldest = pending.map(\.created).min()
            let tried = pending.filter { $0.lastError != nil }
            if let last = tried.max(by: { ($0.lastAttempt ?? $0.created) < ($1.lastAttempt ?? $1.created) }),
               let error = last.lastError {
                facts.lastError = "\(error.kind.rawValue): \(error.message)"
            }
            facts.failed = try storage.outbox.failed().count
            facts.damaged = try storage.outbox.damaged().count
            facts.drafts = try storage.drafts.list().count
        } catch {
            facts.error = Failure(error, otherwise: .permanent).message
        }
        return facts
    }
}


extension CheckReport.Program {
    /// What a click runs for `app`, a `Terminal=true` program: a clicked link has no
    /// terminal of its own, so the program runs in the user's terminal emulator, found as
    /// the handoff finds it (`Launcher.plan`, the same function); or why it cannot run.
    mutating func describeTerminalLaunch(of app: AppInfo) {
        let (variable, emulator) = TerminalEmulator.fromEnvironment()
        do throws(DesktopError) {
            let plan = try Launcher.plan(app, command: nil, uris: ["%u"], onThisTerminal: false, emulator: emulator,
                                         terminalVariable: variable)
            if case .detached(let argv) = plan { runs = argv }
        } catch {
            problem = error.message
        }
    }
}

/// The terminals GIO 2.74 itself tries for a `Terminal=true` program (gdesktopappinfo.c,
/// `prepend_terminal_to_vector`), which decide a click while mailto-route is not the
/// default: neither `$TERMINAL` nor `x-terminal-emulator` is among them.
enum GIOTerminals {
    static let names = ["gnome-terminal", "mate-terminal", "xfce4-terminal", "tilix", "konsole", "nxterm",
                        "color-xterm", "rxvt", "dtterm", "xterm"]

    static var anyInstalled: Bool { names.contains { DesktopEntries.findProgram($0) != nil } }

    static func problem(_ app: AppInfo) -> String {
        "\(app.name) (\(app.id ?? app.executable)) must run in a terminal, and GIO, which opens links while mailto-route is not the default, finds none of \(names.joined(separator: ", "))"
    }
}
