import Foundation
import Testing
import TestSupport

/// The first click asks once: with no account, or with several ways to go under policy=ask,
/// a clicked link opens the chooser of the ways that can start now; "Always" is written to
/// the config file and the next click goes straight there; `route reset` undoes it. And the
/// sheet's From is a chooser of every account, the last one used offered first.
/// Driven through the accessibility tree, with screenshots in `.build/sheet-screenshots/`.
extension SheetTests {
    /// A recording mail program, and one that must run in a terminal, where there is none.
    func installMailPrograms() throws {
        try sandbox.installHandler("recorder-mail.desktop", name: "Recorder Mail", program: "recorder-mail")
        try sandbox.installHandler("term-mail.desktop", name: "Term Mail", program: "term-mail", extraLines: ["Terminal=true"])
    }

    /// The test desktop's environment, with no terminal emulator to be found whatever the
    /// machine has installed (every desktop has one, reached through `x-terminal-emulator`):
    /// `PATH` is the sandbox's programs and the few tools its recording scripts use
    /// (`Sandbox.isolatedPath`), and the sandbox's environment names no `TERMINAL`.
    var chooserEnvironment: [String: String] {
        get throws {
            var environment = environment
            environment["PATH"] = try sandbox.isolatedPath()
            environment["MAILTO_ROUTE_HANDOFF"] = nil
            return environment
        }
    }

    func check(_ environment: [String: String]) throws -> [String: Any] {
        let check = try run(mailtoRouteBinary, ["check", "--json", "--offline"], environment: environment, timeout: 30)
        return try #require(try jsonObject(check.stdout)["verdict"] as? [String: Any], "\(check)")
    }

    func configText() -> String {
        (try? String(contentsOf: sandbox.configHome.appendingPathComponent("mailto-route/config"), encoding: .utf8)) ?? ""
    }

    /// No account: the first click opens the chooser, which lists the recording mail program
    /// and "Set up sending…", and not the terminal-only program (no terminal to run it in);
    /// check says the same. "Always" on the mail program hands the message to it, writes
    /// always= to the config file; a second click goes straight there with no window; `route
    /// reset` takes it back, and the third click asks again.
    @Test func firstClickWithNoAccountAsksOnceAndAlwaysSticks() throws {
        try installMailPrograms()
        let environment = try chooserEnvironment
        let verdict = try check(environment)
        #expect(verdict["decision"] as? String == "choose", "\(verdict)")
        let ways = (verdict["ways"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ways == ["recorder-mail.desktop", "setup", "copy"], "\(verdict)")
        let sentence = verdict["throughMailtoRoute"] as? String ?? verdict["sentence"] as? String ?? ""
        #expect(sentence.hasPrefix("would ask how to send it"), "\(verdict)")

        let first = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=First", "--json"],
                                       environment: environment, directory: sandbox.root)
        let steps = try desktop.drive([
            "wait-chooser", screenshot("chooser-no-account"), "pick:Open in Recorder Mail", "press:Always", "wait-chooser-gone",
        ])
        let offered = try #require(steps.first { $0["step"] as? String == "wait-chooser" }?["ways"] as? [String])
        #expect(offered == ["Open in Recorder Mail", "Set up sending…", "Copy Address"], "only the ways that can start: \(offered)")
        let result = first.finish(timeout: 30)
        #expect(result.status == 0, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["path"] as? String == "handoff")
        #expect((report["handler"] as? [String: Any])?["id"] as? String == "recorder-mail.desktop", "\(report)")
        #expect(sandbox.recordedArgv("recorder-mail")?.contains { $0.hasPrefix("mailto:joe@example.com") } == true)
        #expect(sandbox.neverLaunched("term-mail"))
        // Written where the person can read it, readable by them alone.
        #expect(configText().contains("always=recorder-mail.desktop"), "\(configText())")
        let mode = try FileManager.default.attributesOfItem(atPath: sandbox.configHome.appendingPathComponent("mailto-route/config").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // The second click: straight to the program, no window (the click ends by itself).
        try FileManager.default.removeItem(at: sandbox.recordsDirectory.appendingPathComponent("recorder-mail.argv"))
        #expect((try check(environment))["decision"] as? String == "handoff")
        let second = try DesktopProgram([mailtoRouteBinary, "open", "mailto:ann@example.com?subject=Second", "--json"],
                                        environment: environment, directory: sandbox.root)
        let secondResult = second.finish(timeout: 30)
        #expect(secondResult.status == 0, "a second click that waits for a window never ends: \(secondResult)")
        #expect(sandbox.recordedArgv("recorder-mail")?.contains { $0.hasPrefix("mailto:ann@example.com") } == true)

        // route reset: forgotten, and the third click asks again.
        let reset = try run(mailtoRouteBinary, ["route", "reset"], environment: environment)
        #expect(reset.status == 0, "\(reset)")
        #expect(reset.stdout.contains("Forgot always=recorder-mail.desktop"), "\(reset)")
        #expect(!configText().contains("always="))
        let third = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Third", "--json"],
                                       environment: environment, directory: sandbox.root)
        // Escape is Cancel.
        // Space on a way only chooses it (the chooser stays); Escape cancels.
        _ = try desktop.drive(["wait-chooser", "key:space", "state:Open in Recorder Mail", "key:Escape", "wait-chooser-gone"])
        let thirdResult = third.finish(timeout: 30)
        #expect(thirdResult.status == 4, "\(thirdResult)")
    }

    /// `handler=` in `[route]` is a way chosen, as Always is: with no account, a click on a
    /// desktop hands off to the program it names (here not the desktop's first), with no
    /// window, whether the person wrote it or the administrator (`/etc/xdg`, the sandbox's
    /// `etc/xdg`); check says the same. Without it, the same machine asks.
    @Test(arguments: HandlerSetting.allCases)
    func handlerInTheConfigurationHandsOffWithoutTheChooser(_ setting: HandlerSetting) throws {
        try installMailPrograms()
        try sandbox.installHandler("named-mail.desktop", name: "Named Mail", program: "named-mail")
        if let file = setting.file {
            // The administrator's file keeps the tests' short Undo hold (shortenTheUndoHold).
            _ = try sandbox.write("[route]\nundo-send=1\nhandler=named-mail.desktop\n", to: file, mode: setting.mode)
        }
        let environment = try chooserEnvironment
        let verdict = try check(environment)
        #expect(verdict["decision"] as? String == (setting == .none ? "choose" : "handoff"), "\(verdict)")

        let click = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Named", "--json"],
                                       environment: environment, directory: sandbox.root)
        if setting == .none {
            _ = try desktop.drive(["wait-chooser", "press:Cancel", "wait-chooser-gone"], watching: click)
            #expect(click.finish(timeout: 30).status == 4)
            #expect(sandbox.neverLaunched("named-mail"))
            return
        }
        // No window: the click ends by itself (one that waits for a chooser never does).
        let result = click.finish(timeout: 30)
        #expect(result.status == 0, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["path"] as? String == "handoff", "\(report)")
        #expect(report["result"] as? String == "handedOff", "\(report)")
        #expect((report["handler"] as? [String: Any])?["id"] as? String == "named-mail.desktop", "\(report)")
        #expect(sandbox.recordedArgv("named-mail")?.contains { $0.hasPrefix("mailto:joe@example.com") } == true)
        #expect(sandbox.neverLaunched("recorder-mail"))
    }

    /// The chooser opens with the account chosen (the way most people mean), and the
    /// keyboard alone answers it: Return takes the chosen way once (the sheet opens), Space
    /// only chooses, Escape cancels (exit 4, nothing kept).
    @Test func returnTakesTheChosenWayAndEscapeCancels() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        try installMailPrograms()
        let first = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Keys", "--json"],
                                       environment: chooserEnvironment, directory: sandbox.root)
        let steps = try desktop.drive([
            "wait-chooser", "state:Send from Jane Doe <jane@example.org>", "state:Open in Recorder Mail", "key:Return",
            "wait-sheet", "press:Cancel", "wait-gone",
        ])
        let states = steps.filter { $0["step"] as? String == "state" }
        #expect(states.first?["checked"] as? Bool == true && states.last?["checked"] as? Bool == false, "\(states)")
        #expect(first.finish(timeout: 30).status == 4)
        let second = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Keys", "--json"],
                                        environment: chooserEnvironment, directory: sandbox.root)
        // Space on a way only chooses it (the chooser stays); Escape cancels.
        _ = try desktop.drive(["wait-chooser", "key:space", "state:Open in Recorder Mail", "key:Escape", "wait-chooser-gone"])
        let result = second.finish(timeout: 30)
        #expect(result.status == 4, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "cancelled")
        #expect(!configText().contains("always="), "\(configText())")
        #expect(sandbox.neverLaunched("recorder-mail"))
    }

    /// An account and a mail program: two ways, so the first click asks; choosing the account
    /// "Just this once" opens the sheet, and nothing is remembered.
    @Test func choosingTheAccountJustOnceOpensTheSheet() throws {
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        try installMailPrograms()
        let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Once", "--json"],
                                         environment: chooserEnvironment, directory: sandbox.root)
        let steps = try desktop.drive([
            "wait-chooser", screenshot("chooser-account-and-program"), "pick:Send from Jane Doe <jane@example.org>",
            "press:Just this once", "wait-sheet", "press:Cancel", "wait-gone",
        ])
        let offered = try #require(steps.first { $0["step"] as? String == "wait-chooser" }?["ways"] as? [String])
        #expect(offered == ["Send from Jane Doe <jane@example.org>", "Open in Recorder Mail", "Copy Address"], "\(offered)")
        let result = program.finish(timeout: 30)
        #expect(result.status == 4, "\(result)")
        #expect(!configText().contains("always="))
        #expect(server.messages.isEmpty)
    }

    /// Two accounts: the sheet's From is a chooser of both; the one chosen sends, and is the
    /// one the next sheet sends from without being touched (remembered in the state file).
    @Test func fromChooserSendsFromTheChosenAccountAndRemembersIt() throws {
        let home = try SMTPTestServer(.plain)
        let work = try SMTPTestServer(.plain)
        _ = try sandbox.write("""
            [account]
            from=Jane Doe <jane@example.org>
            host=127.0.0.1
            port=\(home.port)
            security=none

            [account work]
            from=Jane Doe <jane.doe@work.example>
            host=127.0.0.1
            port=\(work.port)
            security=none

            """, to: "home/.config/mailto-route/config", mode: 0o600)
        let first = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=From%20work", "--json"],
                                       environment: chooserEnvironment, directory: sandbox.root)
        _ = try desktop.drive([
            "wait-sheet", "open:From", screenshot("from-chooser-menu"), "choose:Jane Doe <jane.doe@work.example>",
            "wait-label:Jane Doe <jane.doe@work.example>", screenshot("from-chooser"), "press:Send", "wait-gone",
        ])
        let result = first.finish(timeout: 30)
        #expect(result.status == 0, "\(result)")
        #expect(home.messages.isEmpty)
        let sent = try #require(work.messages.first)
        let headers = try #require(try pythonView(of: sent)["headers"] as? [String: String])
        #expect(headers["From"] == "Jane Doe <jane.doe@work.example>")
        let state = (try? String(contentsOf: sandbox.stateHome.appendingPathComponent("mailto-route/accounts"), encoding: .utf8)) ?? ""
        #expect(state.contains("account=work"), "\(state)")

        // The next sheet offers it first: Send without touching From goes from work again.
        let second = try DesktopProgram([mailtoRouteBinary, "open", "mailto:ann@example.com?subject=Again", "--json"],
                                        environment: chooserEnvironment, directory: sandbox.root)
        _ = try desktop.drive(["wait-sheet", screenshot("from-chooser-remembered"), "press:Send", "wait-gone"])
        #expect(second.finish(timeout: 30).status == 0)
        #expect(work.messages.count == 2)
        #expect(home.messages.isEmpty)
    }
}

extension SheetTests {
    /// The account kept with Always: the click opens the sheet with no chooser, and the
    /// sheet's "Ask How to Send Each Time" takes always= out of the file (its other lines and
    /// comments kept), so that the next click asks again.
    @Test func theSheetsMenuForgetsTheWayKept() throws {
        let server = try SMTPTestServer(.plain)
        try installMailPrograms()
        _ = try sandbox.write("""
            # mine
            [route]
            always=account:default

            [account]
            from=Jane Doe <jane@example.org>
            host=127.0.0.1
            port=\(server.port)
            security=none

            """, to: "home/.config/mailto-route/config", mode: 0o600)
        let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Kept", "--json"],
                                         environment: chooserEnvironment, directory: sandbox.root)
        _ = try desktop.drive([
            "wait-sheet", "menu:Ask How to Send Each Time", "wait-label:Links will ask how to send again.",
            screenshot("sheet-forgets-the-way"), "press:Cancel", "wait-gone",
        ])
        #expect(program.finish(timeout: 30).status == 4)
        let text = configText()
        #expect(!text.contains("always="), "\(text)")
        #expect(text.contains("# mine") && text.contains("from=Jane Doe <jane@example.org>"), "\(text)")
        let next = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Again", "--json"],
                                      environment: chooserEnvironment, directory: sandbox.root)
        _ = try desktop.drive(["wait-chooser", "press:Cancel", "wait-chooser-gone"])
        #expect(next.finish(timeout: 30).status == 4)
    }
}

extension SheetTests {
    /// "Set up sending…" (no account): it cannot be kept with Always, and "Just this once"
    /// opens the setup form at once, over the compose sheet it sets sending up for; Escape
    /// cancels it as its Cancel does.
    @Test func setUpSendingOpensTheFormAndIsNeverKept() throws {
        try installMailPrograms()
        let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:joe@example.com?subject=Setup", "--json"],
                                         environment: chooserEnvironment, directory: sandbox.root)
        let steps = try desktop.drive([
            "wait-chooser", "pick:Set up sending…", "state:Always", screenshot("chooser-set-up"), "press:Just this once",
            "wait-window:Set Up Sending", "focused", screenshot("chooser-set-up-form"), "key:Escape", "wait-no:Address",
            "wait-sheet", "press:Cancel", "wait-gone",
        ])
        let focused = try #require(steps.first { $0["step"] as? String == "focused" })
        #expect(focused["name"] as? String == "Address", "the form is ready to type in: \(focused)")
        let always = try #require(steps.first { $0["step"] as? String == "state" })
        #expect(always["enabled"] as? Bool == false, "\(always)")
        #expect(program.finish(timeout: 30).status == 4)
        #expect(!configText().contains("always="))
    }
}

/// Where `handler=` is written, for `handlerInTheConfigurationHandsOffWithoutTheChooser`.
enum HandlerSetting: String, CaseIterable, Sendable {
    /// The person's own file (`~/.config/mailto-route/config`).
    case user
    /// The administrator's (`/etc/xdg/mailto-route/config`, an XDG_CONFIG_DIRS entry).
    case administrator
    /// Nowhere.
    case none

    /// The file below the sandbox's root.
    var file: String? {
        switch self {
        case .user: "home/.config/mailto-route/config"
        case .administrator: "etc/xdg/mailto-route/config"
        case .none: nil
        }
    }

    var mode: Int16 { self == .user ? 0o600 : 0o644 }
}
