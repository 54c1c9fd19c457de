#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MailtoRoute
import Outbox
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

    /// How a check's session asks for credentials: a password command within
    /// `passwordCommandSeconds`, and never a prompt (it says the keyring is locked).
    static let sessionOptions = Session.Options(passwordCommandTimeout: passwordCommandSeconds, passwordMayPrompt: false)

    /// Gathers every fact, then the verdict, on the session `makeSession` makes with
    /// check's options. `offline`: no live test of the server.
    public static func run(offline: Bool, session makeSession: (Session.Options) -> Session) -> CheckReport {
        let session = makeSession(sessionOptions)
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
            registration: .init(registered: false, isDefault: false, desktopFile: session.paths.registration.desktopFilePath, remembered: nil),
            handoff: nil, handoffProblem: nil, candidates: [], sandbox: sandboxFacts(),
            account: .init(), live: nil, policy: .init(value: .ask, error: nil),
            consent: .unreachable(tr("not asked")), hasTerminal: hasTerminal(), outbox: outboxFacts(session.storage),
            decision: .saveDraft(reason: nil), verdict: "", throughMailtoRoute: nil, works: false, problems: [], warnings: [])

        // The [route] group as a click reads it: the policy and the handler= it keeps also
        // when the group has a mistake.
        let settings = session.routeSettings
        report.policy = .init(value: settings.policy, error: settings.error?.message, fix: settings.fix)
        report.configFile = session.paths.configFile
        report.stateDirectory = session.storage.stateDirectory
        gatherHandlers(into: &report, session: session)
        gatherSettings(into: &report, session: session)
        report.browsers = browserFacts()
        let server = gatherAccount(into: &report, session: session)
        report.consent = consentReach(callTimeout: busSeconds, includingTerminal: false)
        // The click's own input to its plan, on this run's facts.
        report.sheetCanShow = session.canShowSheet
        // The chooser's facts: the ways a click could go, and the one remembered.
        report.ways = session.ways()
        report.always = session.rememberedWay
        report.alwaysSetting = settings.always
        report.handlerSetting = settings.handler
        report.portalWays = session.configuration.portalWays.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        do {
            report.sandbox.portalVersion = try EmailPortal.version(callTimeout: busSeconds)
        } catch {
            report.sandbox.portalUnknown = error.message
        }
        report.activation = activationFacts(askingTheBus: !offline)
        report.desktopService = desktopServiceFacts(askingTheBus: !offline, registration: session.paths.registration)
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
                report.handler.xdgMimeProblem = finished.timedOut ? tr("no answer within %@ ms", xdgMimeMilliseconds)
                    : finished.status == 0 ? tr("no default") : tr("failed: %@", finished.errorText)
            }
        } else {
            report.handler.xdgMimeProblem = tr("xdg-mime is not installed")
        }
        Verdict.decide(&report)
        return report
    }
}
