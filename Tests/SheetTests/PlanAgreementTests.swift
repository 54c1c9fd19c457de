import Foundation
import Testing
import TestSupport

/// `check` and a click decide by one plan: over the table of the facts that plan reads
/// (a display, the account and its password, the policy, a mail program and whether it can
/// start, a notification server that answers, the desktop service), check's verdict names
/// the path, and a click in the same sandbox takes that path. A row's expected path is read
/// from check's own sentence, never written into the table.
struct ClickFacts: Sendable, CustomTestStringConvertible {
    enum Account: String, Sendable, CaseIterable {
        case none, usable
        /// Set up, but its password command fails.
        case noPassword
    }

    /// The `mailto:` handler the configuration names.
    enum MailProgram: String, Sendable {
        case none
        /// A graphical program (Thunderbird): it can start.
        case graphical
        /// Debian's neomutt.desktop (`Terminal=true`) with no terminal to run it in: a
        /// handoff target that cannot start now, so the plan must not count on it.
        case terminalOnly
    }

    var display: Bool
    var account: Account
    var policy: String
    var mailProgram: MailProgram
    /// A notification server that answers the consent question with Send.
    var notifications: Bool
    /// The desktop service can be D-Bus activated (else the command line runs the sheet
    /// program itself).
    var service: Bool

    var testDescription: String {
        "display=\(display) account=\(account.rawValue) policy=\(policy) mailProgram=\(mailProgram) "
            + "notifications=\(notifications) service=\(service)"
    }

    /// Where the plan opens the chooser first: a display, policy=ask, no account, and no
    /// `handler=` (a row's mail program is named by it: a way chosen, as Always is).
    var opensChooser: Bool { display && policy == "ask" && account == .none && mailProgram == .none }

    /// Where the plan opens the sheet: a display, policy=ask and an account set up, and no
    /// other way. These rows and the chooser's need the screen, one at a time (SheetTests);
    /// the rest run side by side.
    var opensSheet: Bool { display && policy == "ask" && account != .none && !opensChooser }

    static let all: [ClickFacts] = {
        var rows: [ClickFacts] = []
        for display in [false, true] {
            for account in Account.allCases {
                for policy in ["ask", "handoff", "direct"] {
                    // Where a sheet (or the chooser) is shown.
                    let sheet = display && policy == "ask"
                    // A program that cannot start matters where no sheet or chooser is shown
                    // (the chooser's own tests show that it lists only ways that can start).
                    for mailProgram in sheet ? [MailProgram.none, .graphical] : [.none, .graphical, .terminalOnly] {
                        // A notification server matters where consent is asked (no sheet),
                        // the service where a sheet opens.
                        for notifications in sheet || policy != "ask" ? [false] : [false, true] {
                            for service in sheet ? [true, false] : [true] {
                                rows.append(ClickFacts(display: display, account: account, policy: policy,
                                                       mailProgram: mailProgram, notifications: notifications, service: service))
                            }
                        }
                    }
                }
            }
        }
        return rows
    }()

    static var withoutSheet: [ClickFacts] { all.filter { !$0.opensSheet && !$0.opensChooser } }
    static var withSheet: [ClickFacts] { all.filter(\.opensSheet) }
    static var withChooser: [ClickFacts] { all.filter(\.opensChooser) }
}

/// What a row's check said and its click did.
struct Agreement {
    let sentence: String
    let expected: String
    let took: String
    let click: (status: Int32?, stdout: String, stderr: String)

    /// The path check's sentence names, in the click's terms.
    static func path(of sentence: String) -> String {
        if sentence.hasPrefix("would open the compose sheet") { return "sheet" }
        if sentence.hasPrefix("would ask how to send it") { return "chooser" }
        if sentence.hasPrefix("would send through") || sentence.hasPrefix("would ask, then send") { return "sent" }
        if sentence.hasPrefix("would open ") { return "handoff" }
        if sentence.hasPrefix("would save a draft") { return "draft" }
        return "unknown: \(sentence)"
    }

    /// The path the click's report says it took (a sheet is cancelled by the test).
    static func path(of report: [String: Any]) -> String {
        switch (report["path"] as? String, report["result"] as? String) {
        case ("compose"?, "cancelled"?): "sheet"
        case ("direct"?, "sent"?): "sent"
        case ("handoff"?, "handedOff"?): "handoff"
        case ("draft"?, "saved"?): "draft"
        case let (path, result): "\(path ?? "?") \(result ?? "?")"
        }
    }

    /// Sets up `facts` in a sandbox of its own, asks check, clicks, and compares.
    /// `desktop`: the test display, for the rows with one.
    static func compare(_ facts: ClickFacts, desktop: TestDesktop?) throws -> Agreement {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        var config = ["[route]", "policy=\(facts.policy)"]
        switch facts.mailProgram {
        case .none:
            break
        case .graphical:
            try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
            config.append("handler=thunderbird.desktop")
        case .terminalOnly:
            try sandbox.installNeomutt()
            config.append("handler=neomutt.desktop")
        }
        if facts.account != .none {
            config += ["[account]", "from=Jane Doe <jane@example.org>", "host=127.0.0.1", "port=\(server.port)", "security=none"]
        }
        if facts.account == .noPassword { config += ["user=jane", "password-command=false"] }
        _ = try sandbox.write(config.joined(separator: "\n") + "\n", to: "home/.config/mailto-route/config", mode: 0o600)

        var environment = sandbox.environment
        if let desktop {
            environment = desktop.environment(environment)
            environment["AT_SPI_BUS_ADDRESS"] = desktop.accessibilityBusAddress
        }
        environment["MAILTO_ROUTE_HANDOFF"] = nil
        if facts.mailProgram == .terminalOnly {
            // No terminal of the machine's on PATH (the sandbox's environment names none).
            environment["PATH"] = try sandbox.isolatedPath()
        }
        environment["MAILTO_ROUTE_SERVICE_IDLE"] = "2"
        let register = try run(mailtoRouteBinary, ["register"], environment: environment)
        guard register.status == 0 else { throw TestSupportError("register: \(register)") }
        let services = sandbox.dataHome.appendingPathComponent("dbus-1/services")
        let bus = try PrivateSessionBus(serviceDirectory: facts.service ? services : nil, environment: environment,
                                        unset: desktop == nil ? ["DISPLAY", "WAYLAND_DISPLAY"] : [])
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let notifications = facts.notifications ? try ScriptedNotificationServer(on: bus, answers: ["action:send"]) : nil

        let check = try run(mailtoRouteBinary, ["check", "--json"], environment: environment, timeout: 30)
        let verdict = try jsonObject(check.stdout)["verdict"] as? [String: Any]
        let sentence = verdict?["sentence"] as? String ?? "none: \(check)"
        let expected = path(of: sentence)

        let click = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Agreed&body=x", "--json"],
                                       environment: environment, directory: sandbox.root)
        if expected == "sheet", let desktop {
            _ = try desktop.drive(["wait-sheet", "press:Cancel", "wait-gone"], timeout: 30)
        }
        // The driver finds the chooser window, or the row fails here.
        if expected == "chooser", let desktop {
            _ = try desktop.drive(["wait-chooser", "press:Cancel", "wait-chooser-gone"], timeout: 30)
        }
        // A click the plan did not send to a sheet ends by itself.
        let result = click.finish(timeout: 30)
        var took = (try? jsonObject(result.stdout)).map { path(of: $0) } ?? "no report: \(result)"
        // Cancelled in the chooser the driver found: the chooser's own report.
        if expected == "chooser", took == "sheet" { took = "chooser" }
        if facts.mailProgram == .terminalOnly {
            #expect(sandbox.neverLaunched("neomutt"), "a program that cannot start was started")
        }
        withExtendedLifetime((server, bus, notifications)) {}
        return Agreement(sentence: sentence, expected: expected, took: took, click: result)
    }
}

@Suite struct PlanAgreementTests {
    /// Every row without a sheet: check's verdict is the path the click took.
    @Test(arguments: ClickFacts.withoutSheet)
    func checkAndAClickTakeTheSamePath(_ facts: ClickFacts) throws {
        let desktop = facts.display ? try TestDesktop.shared.get() : nil
        let agreement = try Agreement.compare(facts, desktop: desktop)
        #expect(agreement.expected == agreement.took, "check: \(agreement.sentence)\nclick: \(agreement.click)")
        #expect(agreement.expected != "sheet", "a row without a sheet")
    }
}

extension SheetTests {
    /// The rows where the plan opens the sheet, with the service and without it (the
    /// command line runs the sheet program itself): check names the sheet, and the click
    /// opens it.
    @Test(arguments: ClickFacts.withSheet)
    func checkAndAClickAgreeWhereTheSheetOpens(_ facts: ClickFacts) throws {
        let agreement = try Agreement.compare(facts, desktop: desktop)
        #expect(agreement.expected == "sheet", "check: \(agreement.sentence)")
        #expect(agreement.took == "sheet", "check: \(agreement.sentence)\nclick: \(agreement.click)")
    }
}

extension SheetTests {
    /// The rows where the plan opens the chooser (no account and no `handler=`): check
    /// names it, and the click shows it.
    @Test(arguments: ClickFacts.withChooser)
    func checkAndAClickAgreeWhereTheChooserOpens(_ facts: ClickFacts) throws {
        let agreement = try Agreement.compare(facts, desktop: desktop)
        #expect(agreement.expected == "chooser", "check: \(agreement.sentence)")
        #expect(agreement.took == "chooser", "check: \(agreement.sentence)\nclick: \(agreement.click)")
    }
}
