#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MailtoRoute
import Outbox

/// The desktop's default `mailto:` handler as GIO and xdg-mime see it, mailto-route's
/// registration, where a handoff goes, and every program that handles `mailto:`.
struct MailProgramSection: CheckSection {
    let handler: CheckReport.Handler
    let registration: CheckReport.Registration
    let handoff: CheckReport.Program?
    let handoffProblem: String?
    let candidates: [CheckReport.Program]
    let mailPrograms: [MailHandler]

    var title: String { tr("Mail program") }

    var rows: [(label: String, value: String)] {
        var rows: [(String, String)] = []
        rows.append((tr("GIO default"), handler.gioDefault.map(\.described) ?? tr("none")))
        if handler.gioDefault != nil { rows.append((tr("set by"), handler.setBy ?? tr("no mimeapps.list (GIO's first candidate)"))) }
        let xdg = handler.xdgMime ?? tr("unknown (%@)", handler.xdgMimeProblem ?? tr("no answer"))
        rows.append(("xdg-mime", xdg + (handler.xdgMime == nil ? "" : handler.disagree ? tr(" (disagrees with GIO)") : tr(" (agrees)"))))
        rows.append(("mailto-route", (registration.registered ? tr("registered") : tr("not registered"))
                     + (registration.isDefault ? tr(", the default") : tr(", not the default"))))
        if let remembered = registration.remembered { rows.append((tr("remembered"), tr("%@ (the default before register)", remembered))) }
        rows.append((tr("hands off to"), handoff?.described ?? tr("nothing: %@", handoffProblem ?? tr("no mail program"))))
        rows.append((tr("other candidates"), candidates.isEmpty ? tr("none") : candidates.map { "\($0.name) (\($0.id))" }.joined(separator: ", ")))
        return rows
    }

    var jsonMembers: [(String, JSON)] {
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
        let handlerJSON: JSON = .object([
            ("default", nullable(handler.gioDefault, \.json)), ("setBy", .string(handler.setBy)),
            ("xdgMime", .string(handler.xdgMime)), ("xdgMimeProblem", .string(handler.xdgMimeProblem)),
            ("disagree", .bool(handler.disagree)), ("all", .array(all)),
        ])
        let registrationJSON: JSON = .object([
            ("registered", .bool(registration.registered)), ("isDefault", .bool(registration.isDefault)),
            ("desktopFile", .string(registration.desktopFile)), ("remembered", .string(registration.remembered)),
        ])
        return [("handler", handlerJSON), ("registration", registrationJSON),
                ("handoff", handoff?.json ?? .object([("error", .string(handoffProblem))])),
                ("candidates", .array(candidates.map(\.json)))]
    }
}

extension CheckReport {
    public struct Program: Sendable, Equatable {
        public var id: String
        public var name: String
        /// The first word of `Exec=` (empty for webmail).
        public var executable: String
        /// Whether that program can be run (found in `PATH` or at its path).
        public var executableExists: Bool
        /// For the handoff program, when it is not started through GIO: the argv a click
        /// runs (a `Terminal=true` program in the terminal emulator), `%u` for the URL.
        public var runs: [String]? = nil
        /// Why a click could not start it although it exists (a terminal program with no
        /// terminal to run in): the click saves a draft instead.
        public var problem: String? = nil
        /// Whether a click reaches it.
        public var startable: Bool { executableExists && problem == nil }
    }

    /// A desktop file named as a default whose program is gone: GIO ignores it.
    public struct StaleEntry: Sendable, Equatable {
        public var id: String
        public var file: String
        public var program: String
    }

    public struct Handler: Sendable {
        /// GIO's default `mailto:` handler.
        public var gioDefault: Program?
        /// The `mimeapps.list` that set it; `nil` when none did (GIO's first candidate).
        public var setBy: String?
        /// `xdg-mime query default x-scheme-handler/mailto`; `nil` when the tool is missing
        /// or gave no answer (`xdgMimeProblem` says which).
        public var xdgMime: String?
        public var xdgMimeProblem: String?
        /// The two answers name different programs.
        public var disagree: Bool {
            xdgMime.map { $0 != (gioDefault?.id ?? "") } ?? false
        }
    }

    public struct Registration: Sendable {
        public var registered: Bool
        public var isDefault: Bool
        public var desktopFile: String
        /// The default before `register`, remembered for the handoff.
        public var remembered: String?
    }
}

extension CheckReport.Program {
    /// As the readable report names it: the program, what it runs, and why not.
    var described: String {
        var text = "\(name) (\(id))"
        if !executable.isEmpty {
            text += executableExists ? tr(", runs %@", executable) : tr(", %@ does not exist", executable)
        }
        if let runs { text += tr(" in a terminal: %@", ExecLine.readable(runs)) }
        if let problem { text += tr("; cannot be started: %@", problem) }
        return text
    }

    var json: JSON {
        .object([("id", .string(id)), ("name", .string(name)), ("executable", .string(executable)),
                 ("executableExists", .bool(executableExists)), ("runs", nullable(runs, JSON.strings)),
                 ("problem", .string(problem))])
    }
}

extension CheckReport {
    var mailProgramSection: MailProgramSection {
        MailProgramSection(handler: handler, registration: registration, handoff: handoff, handoffProblem: handoffProblem,
                           candidates: candidates, mailPrograms: mailPrograms)
    }
}

extension Check {
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
        let registration = session.paths.registration
        report.registration.registered = access(registration.desktopFilePath, F_OK) == 0
        report.registration.remembered = registration.previousDefault
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
        tr("%@ (%@) must run in a terminal, and GIO, which opens links while mailto-route is not the default, finds "
            + "none of %@", app.name, app.id ?? app.executable, names.joined(separator: ", "))
    }
}
