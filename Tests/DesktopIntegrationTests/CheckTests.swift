import Foundation
import MailtoCore
import Outbox
import Testing
import TestSupport

/// `mailto-route check` in a sandbox of its own: each situation it reports, on the table
/// and on the JSON, and the password in neither.
private func check(_ sandbox: Sandbox, _ extra: [String: String] = [:], offline: Bool = true) throws -> (table: RunResult, json: RunResult, object: [String: Any]) {
    let flags = offline ? ["--offline"] : []
    let table = try route(["--check"] + flags, in: sandbox, extra)
    let json = try route(["check", "--json"] + flags, in: sandbox, extra)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
    return (table, json, object)
}

private func member(_ object: [String: Any], _ path: String...) -> Any? {
    var current: Any? = object
    for key in path { current = (current as? [String: Any])?[key] }
    return current
}

/// The value of a row of the table (`  label  value`), the first with that label.
private func row(_ table: RunResult, _ label: String) -> String? {
    for line in table.stdout.split(separator: "\n") {
        let trimmed = line.drop { $0 == " " }
        guard line.hasPrefix("  "), trimmed.hasPrefix(label + " ") else { continue }
        return String(trimmed.dropFirst(label.count).drop { $0 == " " })
    }
    return nil
}

/// Every value of rows with that label.
private func rows(_ table: RunResult, _ label: String) -> [String] {
    table.stdout.split(separator: "\n").compactMap { line in
        let trimmed = line.drop { $0 == " " }
        guard line.hasPrefix("  "), trimmed.hasPrefix(label + " ") else { return nil }
        return String(trimmed.dropFirst(label.count).drop { $0 == " " })
    }
}

private func problems(_ object: [String: Any]) -> [(problem: String, fix: String)] {
    (object["problems"] as? [[String: Any]] ?? []).map { ($0["problem"] as? String ?? "", $0["fix"] as? String ?? "") }
}

private func writeConfig(_ sandbox: Sandbox, _ lines: [String], mode: Int16 = 0o600) throws -> URL {
    try sandbox.write(lines.joined(separator: "\n") + "\n", to: "home/.config/mailto-route/config", mode: mode)
}

private func account(port: Int, security: String = "starttls", caFile: String? = nil, user: String? = "jane") -> [String] {
    var lines = ["[account]", "from=Jane Doe <jane@example.org>", "host=127.0.0.1", "port=\(port)", "security=\(security)"]
    if let user { lines.append("user=\(user)") }
    if let caFile { lines.append("ca-file=\(caFile)") }
    return lines
}

/// `Servers/email-portal.py` on `bus`, answering `version`; stopped when released.
private func emailPortal(on bus: PrivateSessionBus, version: Int) throws -> ServerProcess {
    let ready = FileManager.default.temporaryDirectory.appendingPathComponent("portal-ready-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: ready) }
    let process = try ServerProcess(
        ["/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/email-portal.py").path,
         "--ready", ready.path, "--version", String(version)],
        environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
    try process.waitForReady(ready.path, name: "email-portal.py")
    return process
}

@Suite struct CheckTests {
    // MARK: - Copy Address on Wayland

    /// On Wayland Copy Address without a focused window of the service's goes through
    /// wl-copy: check names it where it is, and warns where it is not (its PATH then only the
    /// sandbox's bin: Debian's /bin is /usr/bin, where wl-copy may be installed).
    @Test func onWaylandCheckSaysWhetherWlCopyCanTakeTheClipboard() throws {
        let sandbox = try Sandbox()
        let bin = sandbox.root.appendingPathComponent("bin").path
        let missing = try check(sandbox, ["WAYLAND_DISPLAY": "wayland-test", "PATH": bin])
        #expect((missing.object["warnings"] as? [String])?.contains { $0.contains("needs wl-copy, which is not installed") } == true,
                "\(missing.json)")
        #expect(member(missing.object, "desktopService", "wlCopy") is NSNull, "\(missing.json)")
        let stub = try sandbox.installScript("wl-copy", "exit 0")
        let present = try check(sandbox, ["WAYLAND_DISPLAY": "wayland-test", "PATH": bin])
        #expect(member(present.object, "desktopService", "wlCopy") as? String == stub, "\(present.json)")
        #expect((present.object["warnings"] as? [String])?.contains { $0.contains("wl-copy") } == false, "\(present.json)")
        #expect(row(present.table, "Copy Address")?.hasPrefix("through \(stub)") == true, "\(present.table)")
        // Not on Wayland: nothing said of it.
        let x11 = try check(sandbox, ["PATH": bin])
        #expect(row(x11.table, "Copy Address") == nil, "\(x11.table)")
    }

    // MARK: - Mail programs

    @Test func noHandlerAndNoAccountOnlySavesADraft() throws {
        let sandbox = try Sandbox()
        let (table, json, object) = try check(sandbox)
        #expect(table.status == 1, "\(table)")
        #expect(json.status == 1)
        #expect(row(table, "a click") == "nothing would open: no program handles mailto: links")
        #expect(row(table, "mailto-route open") == "would save a draft: no mail program and no account")
        #expect(row(table, "GIO default") == "none")
        #expect(rows(table, "fix").contains("mailto-route register"))
        #expect(member(object, "verdict", "decision") as? String == "draft")
        #expect(member(object, "verdict", "throughMailtoRoute") as? String == "would save a draft: no mail program and no account")
        #expect(member(object, "verdict", "works") as? Bool == false)
        #expect(member(object, "handler", "default") is NSNull)
        #expect(member(object, "handoff", "error") is String)
        #expect(member(object, "account", "configured") as? Bool == false)
        #expect(member(object, "live") is NSNull)
        #expect(problems(object).contains { $0.fix.hasPrefix("install a mail program") })
    }

    @Test func registeredWithoutARememberedHandlerSavesADraftUntilAMailProgramAppears() throws {
        let sandbox = try Sandbox()
        #expect(try route(["register"], in: sandbox).status == 0)
        var (table, _, object) = try check(sandbox)
        #expect(table.status == 1, "\(table)")
        #expect(row(table, "a click") == "would save a draft: no mail program and no account")
        #expect(row(table, "mailto-route") == "registered, the default")
        #expect(row(table, "remembered") == nil)
        #expect(member(object, "registration", "isDefault") as? Bool == true)
        #expect(member(object, "registration", "remembered") is NSNull)
        #expect(member(object, "handler", "default", "id") as? String == "mailto-route.desktop")

        // A mail program installed later is a candidate: the handoff finds it.
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        (table, _, object) = try check(sandbox)
        #expect(table.status == 0, "\(table)")
        #expect(row(table, "a click") == "would open Fake Bird")
        #expect(row(table, "hands off to")?.hasPrefix("Fake Bird (fakebird.desktop), runs /") == true)
        #expect(member(object, "handoff", "id") as? String == "fakebird.desktop")
        #expect(member(object, "handoff", "executableExists") as? Bool == true)
        #expect(member(object, "verdict", "decision") as? String == "handoff")
    }

    @Test func registeredWithARememberedHandlerHandsOffToIt() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.installHandler("other.desktop", name: "Other Mail", program: "othermail")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        // Before register: a click goes straight to the program.
        var (table, _, object) = try check(sandbox)
        #expect(table.status == 0, "\(table)")
        #expect(row(table, "a click") == "would open Fake Bird directly: mailto-route is not the default mailto: handler")
        #expect(row(table, "set by") == sandbox.mimeappsList.path)
        #expect(member(object, "handler", "setBy") as? String == sandbox.mimeappsList.path)
        #expect(member(object, "mimeapps", "winner") as? String == sandbox.mimeappsList.path)

        #expect(try route(["register"], in: sandbox).status == 0)
        (table, _, object) = try check(sandbox)
        #expect(table.status == 0, "\(table)")
        #expect(row(table, "a click") == "would open Fake Bird")
        #expect(row(table, "remembered") == "fakebird.desktop (the default before register)")
        #expect(row(table, "other candidates") == "Other Mail (other.desktop)")
        #expect(row(table, "mailto-route") == "registered, the default")
        #expect(member(object, "registration", "remembered") as? String == "fakebird.desktop")
        #expect(member(object, "handoff", "name") as? String == "Fake Bird")
        #expect((object["candidates"] as? [[String: Any]])?.map { $0["id"] as? String } == ["other.desktop"])
        #expect(problems(object).isEmpty, "\(problems(object))")
    }

    @Test func aHandlerWhoseProgramIsGoneIsNamedWithTheFix() throws {
        let sandbox = try Sandbox()
        try sandbox.write("""
            [Desktop Entry]
            Type=Application
            Name=Gone Mail
            Exec=/opt/gone/bin/gonemail %u
            MimeType=x-scheme-handler/mailto;

            """, to: "usr/share/applications/gonemail.desktop")
        _ = try run("/usr/bin/update-desktop-database", [sandbox.systemApplications.path])
        try sandbox.setDefaultMailHandler("gonemail.desktop")
        let (table, _, object) = try check(sandbox)
        #expect(table.status == 1, "\(table)")
        #expect(row(table, "stale") == "gonemail.desktop: /opt/gone/bin/gonemail does not exist (\(sandbox.systemApplications.path)/gonemail.desktop)")
        let stale = try #require((member(object, "mimeapps", "stale") as? [[String: Any]])?.first)
        #expect(stale["id"] as? String == "gonemail.desktop")
        #expect(stale["program"] as? String == "/opt/gone/bin/gonemail")
        #expect(problems(object).contains { $0.problem.contains("its program /opt/gone/bin/gonemail does not exist") && $0.fix.hasPrefix("reinstall the program") })
        #expect(member(object, "handler", "default") is NSNull)
        // xdg-mime reads the list without asking whether the program is there: the two disagree.
        #expect(row(table, "xdg-mime") == "gonemail.desktop (disagrees with GIO)")
        #expect(member(object, "handler", "xdgMime") as? String == "gonemail.desktop")
        #expect(member(object, "handler", "disagree") as? Bool == true)
    }

    @Test func aDesktopSpecificListThatOverridesTheUsersChoiceIsNamed() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let desktop = ["XDG_CURRENT_DESKTOP": "KDE"]
        #expect(try route(["register"], in: sandbox, desktop).status == 0)
        let kdeList = try sandbox.write("[Default Applications]\nx-scheme-handler/mailto=fakebird.desktop\n",
                                        to: "home/.config/kde-mimeapps.list")
        let (table, _, object) = try check(sandbox, desktop)
        #expect(row(table, "a click") == "would open Fake Bird directly: mailto-route is not the default mailto: handler")
        #expect(row(table, kdeList.path) == "fakebird.desktop (kde only) <- wins")
        #expect(row(table, sandbox.mimeappsList.path) == "mailto-route.desktop")
        #expect(rows(table, "fix").contains("mailto-route register --force (or remove the x-scheme-handler/mailto line from \(kdeList.path))"))
        let overrides = try #require(member(object, "mimeapps", "overrides") as? [[String: Any]])
        #expect(overrides.first?["path"] as? String == kdeList.path)
        #expect(member(object, "handler", "setBy") as? String == kdeList.path)
        #expect((member(object, "mimeapps", "lists") as? [[String: Any]])?.first?["desktop"] as? String == "kde")
    }

    // MARK: - Account

    @Test func aWorldReadablePasswordIsAConfigurationError() throws {
        let sandbox = try Sandbox()
        let password = "pw-\(UUID().uuidString)"
        let config = try writeConfig(sandbox, account(port: 2525, security: "none") + ["password=\(password)"], mode: 0o644)
        let (table, json, object) = try check(sandbox)
        #expect(table.status == 78, "\(table)")
        #expect(json.status == 78)
        #expect(row(table, "permissions") == "644")
        #expect(rows(table, "fix").contains("chmod 600 \(config.path)"))
        #expect(member(object, "account", "valid") as? Bool == false)
        #expect(member(object, "account", "mode") as? String == "644")
        #expect(problems(object).contains { $0.fix == "chmod 600 \(config.path)" })
        for text in [table.stdout, table.stderr, json.stdout, json.stderr] { #expect(!text.contains(password)) }
    }

    @Test func aPasswordCommandThatFailsOrNeedsATerminalIsNamed() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        _ = try writeConfig(sandbox, account(port: 2525) + ["password-command=echo no keyring >&2; exit 3"])
        var (table, _, object) = try check(sandbox)
        #expect(table.status == 78, "\(table)")
        #expect(row(table, "password")?.hasPrefix("password-command: no password (") == true)
        #expect(table.stdout.contains("exited with status 3: no keyring"))
        #expect(member(object, "account", "password", "available") as? Bool == false)
        #expect(member(object, "account", "password", "source") as? String == "password-command")
        // A link is still handed off: the broken account is a problem, not a dead end.
        #expect(member(object, "verdict", "decision") as? String == "handoff")
        #expect(problems(object).contains { $0.fix.hasPrefix("make password-command in") })

        // One that reads the terminal finds none: the check runs it without one, as a click does.
        _ = try writeConfig(sandbox, account(port: 2525) + ["password-command=read -r p < /dev/tty && echo \"$p\""])
        (table, _, object) = try check(sandbox)
        #expect(table.status == 78, "\(table)")
        #expect((member(object, "account", "password", "error") as? String)?.contains("password-command failed") == true)
    }

    @Test func aLiveServerThatAcceptsIsAskedThenSentThrough() throws {
        let certificates = try TestCertificates.shared.get()
        let password = "pw-\(UUID().uuidString)"
        let server = try SMTPTestServer(.starttls, certificate: certificates.server, auth: ("jane", password))
        let sandbox = try Sandbox()
        #expect(try route(["register"], in: sandbox).status == 0)
        try sandbox.write(password + "\n", to: "home/secret", mode: 0o600)
        _ = try writeConfig(sandbox, account(port: server.port, caFile: certificates.caFile)
                            + ["password-command=cat \(sandbox.home.path)/secret"])
        // A notification server that shows buttons: consent can be asked for a click.
        let bus = try PrivateSessionBus()
        let notifications = try ScriptedNotificationServer(on: bus)
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let (table, json, object) = try check(sandbox, environment, offline: false)
        #expect(table.status == 0, "\(table)")
        #expect(row(table, "a click") == "would ask, then send through 127.0.0.1:\(server.port) as jane@example.org")
        #expect(row(table, "live test")?.hasPrefix("127.0.0.1:\(server.port): connected, STARTTLS, AUTH accepted (") == true)
        #expect(row(table, "password") == "password-command: yields a password without a terminal")
        #expect(row(table, "email portal") == "absent")
        #expect(member(object, "verdict", "decision") as? String == "askThenDirect")
        #expect(member(object, "live", "connected") as? Bool == true)
        #expect(member(object, "live", "tls") as? Bool == true)
        #expect(member(object, "live", "authenticated") as? Bool == true)
        #expect((member(object, "live", "capabilities") as? [String])?.contains { $0.hasPrefix("AUTH") } == true)
        #expect(member(object, "consent", "click") as? String == "notification")
        #expect(member(object, "sandbox", "emailPortal") as? String == "absent")
        // Nothing was sent, and nobody was asked.
        #expect(server.messages.isEmpty)
        #expect(notifications.notifications.isEmpty)
        for text in [table.stdout, table.stderr, json.stdout, json.stderr] { #expect(!text.contains(password)) }
    }

    @Test func aServerThatRefusesTheLoginIsAConfigurationError() throws {
        let certificates = try TestCertificates.shared.get()
        let server = try SMTPTestServer(.starttls, certificate: certificates.server, auth: ("jane", "the-right-one"))
        let sandbox = try Sandbox()
        let password = "wrong-\(UUID().uuidString)"
        _ = try writeConfig(sandbox, account(port: server.port, caFile: certificates.caFile) + ["password=\(password)"])
        let (table, json, object) = try check(sandbox, offline: false)
        #expect(table.status == 78, "\(table)")
        #expect(row(table, "live test")?.contains("connected, STARTTLS, AUTH refused") == true)
        #expect(member(object, "live", "authenticated") as? Bool == false)
        #expect(member(object, "live", "error", "kind") as? String == "configuration")
        #expect(problems(object).contains { $0.fix.hasPrefix("check user= and the password of") })
        for text in [table.stdout, table.stderr, json.stdout, json.stderr] { #expect(!text.contains(password)) }
    }

    /// Check's live test keeps its own deadline (5 s, docs/check.md), whatever the
    /// account's `timeout=`: here an hour, which a check without a deadline of its own would
    /// wait out, and be killed for at the harness's patience.
    @Test(arguments: ["closed", "silent"])
    func aServerThatIsDownIsReportedAtChecksOwnDeadline(_ kind: String) throws {
        let silent = kind == "silent" ? try SMTPTestServer(.silent) : nil
        let closed = silent == nil ? try unlistenedPort() : nil
        defer { if let closed { close(closed.1) } }
        let port = silent?.port ?? closed?.0 ?? 0
        let sandbox = try Sandbox()
        _ = try writeConfig(sandbox, account(port: port, security: "none", user: nil) + ["timeout=3600"])
        let result = try route(["check", "--json"], in: sandbox)
        #expect(result.status == 1, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(member(object, "live", "milliseconds") is Int, "\(object)")
        #expect(member(object, "live", "connected") as? Bool == false)
        #expect(member(object, "live", "error", "kind") as? String == "transient")
        #expect(problems(object).contains { $0.fix.hasPrefix("check host= and port=") })
        let table = try route(["check"], in: sandbox)
        #expect(row(table, "live test")?.hasPrefix("127.0.0.1:\(port): not connected (") == true, "\(table)")
    }

    // MARK: - Sandbox

    @Test func theSandboxAndTheEmailPortalAreReported() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let portal = try emailPortal(on: bus, version: 4)
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "SNAP": "/snap/fakebird/12", "SNAP_NAME": "fakebird"]
        var (table, _, object) = try check(sandbox, environment)
        #expect(row(table, "email portal") == "present, version 4", "\(table)")
        #expect(row(table, "Snap") == "yes (fakebird)")
        #expect(member(object, "sandbox", "emailPortal") as? String == "present")
        #expect(member(object, "sandbox", "emailPortalVersion") as? Int == 4)
        #expect(member(object, "sandbox", "snap") as? String == "fakebird")
        portal.stop()
        // No bus at all: nobody can tell.
        (table, _, object) = try check(sandbox)
        #expect(row(table, "email portal")?.hasPrefix("unknown (") == true)
        #expect(row(table, "Snap") == "no")
        #expect(member(object, "sandbox", "emailPortal") as? String == "unknown")
        #expect(member(object, "sandbox", "snap") is NSNull)
    }

    // MARK: - Policy, outbox

    @Test func policyDirectIsWarnedAbout() throws {
        let sandbox = try Sandbox()
        _ = try writeConfig(sandbox, account(port: 2525, security: "none", user: nil) + ["[route]", "policy=direct"])
        #expect(try route(["register"], in: sandbox).status == 0)
        let (table, _, object) = try check(sandbox)
        #expect(table.status == 0, "\(table)")
        #expect(row(table, "a click") == "would send through 127.0.0.1:2525 as jane@example.org without asking (policy=direct)")
        #expect(row(table, "warning")?.hasPrefix("policy=direct lets any clicked link send mail without asking") == true)
        #expect(member(object, "policy", "value") as? String == "direct")
        // --offline: the server is not contacted.
        #expect(row(table, "live test") == "not run (--offline)")
        #expect(member(object, "live") is NSNull)
        #expect((object["warnings"] as? [String])?.count == 1)
    }

    @Test func aFullOutboxIsCountedWithTheFlushThatEmptiesIt() throws {
        let sandbox = try Sandbox()
        let box = Outbox(directory: sandbox.stateHome.appendingPathComponent("mailto-route/outbox").path)
        for index in 0..<3 {
            let text = "From: jane@example.org\r\nTo: joe@example.org\r\nSubject: \(index)\r\n\r\nHi\r\n"
            _ = try box.enqueue(OutboxMessage(bytes: Array(text.utf8), envelopeFrom: "jane@example.org", recipients: ["joe@example.org"]),
                                failedAttempt: Failure(kind: .transient, message: "connection refused"))
        }
        let failed = try box.enqueue(OutboxMessage(bytes: Array("Subject: x\r\n\r\nx\r\n".utf8), envelopeFrom: "jane@example.org",
                                                   recipients: ["nobody@example.org"]))
        try box.markAttempt(failed.id, error: Failure(kind: .permanent, message: "550 no such user"))
        let (table, _, object) = try check(sandbox)
        #expect(row(table, "pending")?.hasPrefix("3, oldest queued ") == true, "\(table)")
        #expect(row(table, "last error") == "transient: connection refused")
        #expect(row(table, "failed") == "1")
        #expect(rows(table, "fix").contains { $0.hasPrefix("mailto-route outbox flush") }, "\(table)")
        #expect(member(object, "outbox", "pending") as? Int == 3)
        #expect(member(object, "outbox", "failed") as? Int == 1)
        #expect(member(object, "outbox", "lastError") as? String == "transient: connection refused")
        // No service runs here: nothing retries them, and check says so.
        #expect(problems(object).contains { $0.fix.hasPrefix("mailto-route outbox flush") && $0.problem.contains("nothing retries them now") })
    }
}

/// The desktop service in `check`: its program beside mailto-route, the service file that
/// `register` put where the session bus looks, and, with a bus, whether it runs.
@Suite struct CheckDesktopServiceTests {
    @Test func checkNamesTheSheetProgramAndTheServiceFileRegisterInstalled() throws {
        let sandbox = try Sandbox()
        let before = try check(sandbox)
        #expect(member(before.object, "desktopService", "serviceFiles") as? [String] == [])
        #expect(row(before.table, "service files")?.hasPrefix("none: run mailto-route register") == true, "\(before.table)")
        #expect(try route(["register"], in: sandbox).status == 0)
        let after = try check(sandbox)
        let file = sandbox.dataHome.appendingPathComponent("dbus-1/services/io.github.mailto_route.MailtoRoute.service").path
        #expect(member(after.object, "desktopService", "serviceFiles") as? [String] == [file])
        let program = try #require(member(after.object, "desktopService", "sheetProgram") as? String)
        #expect(program.hasSuffix("/mailto-route-desktop") && FileManager.default.isExecutableFile(atPath: program))
        #expect(member(after.object, "desktopService", "running") is NSNull, "--offline asks no bus")
        #expect(row(after.table, "service file") == file)
    }

    @Test func withABusCheckSaysWhetherTheServiceRuns() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let result = try check(sandbox, ["DBUS_SESSION_BUS_ADDRESS": bus.address], offline: false)
        #expect(member(result.object, "desktopService", "running") as? Bool == false, "\(result.json)")
        #expect(row(result.table, "running") == "no (started by the first sheet)")
    }
}

/// Check's sentence for a desktop click, by the click's own plan (`Plan.make`, `.sheet`,
/// `.choose`): with a display, an account and policy=ask, the sheet, or the chooser first
/// when there is another way (the mail program) and none kept; otherwise what it always said.
/// `DISPLAY` only has to be set: check opens no window (the click itself, on a real
/// display, is SheetTests.checkAndAClickAgreeOnTheSheet).
@Suite struct CheckSheetVerdictTests {
    @Test(arguments: [
        // display, account ("usable", "no password", nil), policy, expected decision, sentence start
        // An account and a mail program: two ways, and the first click asks once.
        (true, "usable", "ask", "choose", "would ask how to send it, just this once or always: send from Jane <jane@example.org>; open in Thunderbird"),
        (true, "no password", "ask", "choose", "would ask how to send it, just this once or always: send from Jane"),
        // The account kept with Always: the sheet, without the chooser.
        (true, "usable, always", "ask", "sheetThenDirect", "would open the compose sheet, and send through 127.0.0.1"),
        (true, "no password, always", "ask", nil, "would open the compose sheet, but Send cannot work there"),
        (true, "usable", "handoff", "handoff", "would open Thunderbird"),
        (true, nil, "ask", "choose", "would ask how to send it, just this once or always: open in Thunderbird; set up sending"),
        (false, "usable", "ask", "askThenDirect", "would open Thunderbird: consent to send cannot be asked"),
    ] as [(Bool, String?, String, String?, String)])
    func verdictForAClickOnADesktop(display: Bool, account: String?, policy: String, decision: String?, sentence: String) throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
        try sandbox.setDefaultMailHandler("thunderbird.desktop")
        #expect(try route(["register"], in: sandbox).status == 0)
        var lines = ["[route]", "policy=\(policy)"]
        if account?.hasSuffix(", always") == true { lines.append("always=account:default") }
        switch account?.replacingOccurrences(of: ", always", with: "") {
        case "usable"?: lines += ["[account]", "from=Jane <jane@example.org>", "host=127.0.0.1", "port=2525", "security=none"]
        case "no password"?:
            lines += ["[account]", "from=Jane <jane@example.org>", "host=127.0.0.1", "port=2525", "security=none", "user=jane",
                      "password-command=false"]
        default: break
        }
        _ = try writeConfig(sandbox, lines)
        let (_, _, object) = try check(sandbox, display ? ["DISPLAY": ":99"] : [:])
        let verdict = member(object, "verdict", "sentence") as? String ?? ""
        #expect(verdict.hasPrefix(sentence), "\(verdict)")
        if let decision { #expect(member(object, "verdict", "decision") as? String == decision, "\(object)") }
    }
}

/// Who keeps "it will be retried": with no desktop service running, check says that
/// nothing retries a queued message now, and how to send it.
@Suite struct CheckRetryTests {
    @Test func aQueuedMessageWithNothingToRetryItIsNamed() throws {
        let sandbox = try Sandbox()
        let first = try SMTPTestServer(.plain)
        let port = first.port
        first.stop()
        _ = try writeConfig(sandbox, account(port: port, security: "none", user: nil))
        let send = try route(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(send.status == 75, "\(send)")
        let (_, _, object) = try check(sandbox, offline: false)
        // One message, in the singular throughout: it waits, nothing retries it.
        let found = problems(object).first { $0.problem.hasPrefix("1 message waits in the outbox (queued ") }
        #expect(found?.problem.contains("nothing retries it now") == true, "\(problems(object))")
        #expect(found?.problem.contains("them") == false, "\(problems(object))")
        #expect(found?.fix.contains("mailto-route outbox flush") == true)
        let text = try route(["check", "--offline"], in: sandbox).stdout
        #expect(text.contains("1, queued "), "\(text)")
    }

    /// A message held until its time (Send Later) is named as held, with its time, and as
    /// sent then by whoever owns the outbox.
    @Test func aHeldMessageIsNamedWithItsTime() throws {
        let sandbox = try Sandbox()
        _ = try writeConfig(sandbox, account(port: 2525, security: "none", user: nil))
        let outbox = Outbox(directory: sandbox.stateHome.appendingPathComponent("mailto-route/outbox").path)
        let bytes = Array("From: jane@example.org\r\nTo: joe@example.com\r\nSubject: Later\r\n\r\nx\r\n".utf8)
        let until = Timestamp.now() + 3_600
        _ = try outbox.enqueue(OutboxMessage(bytes: bytes, envelopeFrom: "jane@example.org", recipients: ["joe@example.com"]),
                               held: (.later, until))
        let (_, _, object) = try check(sandbox, offline: false)
        #expect(member(object, "outbox", "held") as? Int == 1, "\(object)")
        #expect(member(object, "outbox", "nextHeld") as? String == until.iso8601, "\(object)")
        let found = problems(object).first { $0.problem.hasPrefix("1 message waits in the outbox") }
        #expect(found?.problem.contains("it is held until its time (\(until.iso8601)), and sent then") == true,
                "\(problems(object))")
    }
}

/// The browsers' own `mailto:` settings in `check`: a profile that keeps `mailto:` for a web
/// site is a warning with the remedy; one that hands links to the desktop says so; an
/// unreadable settings file is one line; no browser, no section. Files as Firefox and
/// Chromium write them, in the sandbox's home.
@Suite struct CheckBrowserTests {
    static let gmail = "https://mail.google.com/mail/?extsrc=mailto&url=%s"

    /// Firefox's profiles.ini with a profile `default-release` that chose Gmail for mailto and
    /// one `work` that uses the system's mail program; Chromium with Outlook on the web as the
    /// default mailto handler; a Chromium profile whose Preferences is cut short.
    private func browsers(_ sandbox: Sandbox) throws {
        try sandbox.write("""
            [Install4F96D1932A9F858E]
            Default=abcd.default-release
            Locked=1

            [Profile1]
            Name=work
            IsRelative=1
            Path=efgh.work

            [Profile0]
            Name=default-release
            IsRelative=1
            Path=abcd.default-release
            Default=1

            [General]
            StartWithLastProfile=1
            Version=2
            """, to: "home/.mozilla/firefox/profiles.ini")
        try sandbox.write("""
            {"defaultHandlersVersion":{"en-US":4},"mimeTypes":{"application/pdf":{"action":3,"extensions":["pdf"]}},\
            "schemes":{"mailto":{"action":2,"handlers":[{"name":"Gmail","uriTemplate":"\(Self.gmail)"}]}},\
            "isDownloadsImprovementsAlreadyMigrated":true}
            """, to: "home/.mozilla/firefox/abcd.default-release/handlers.json")
        try sandbox.write("""
            {"defaultHandlersVersion":{"en-US":4},"mimeTypes":{},\
            "schemes":{"mailto":{"action":4,"handlers":[null,{"name":"Gmail","uriTemplate":"\(Self.gmail)"}]}}}
            """, to: "home/.mozilla/firefox/efgh.work/handlers.json")
        try sandbox.write("""
            {"partition":{"per_host_zoom_levels":{"x":{"example.org":{"zoom_level":1.5}}}},"custom_handlers":{\
            "registered_protocol_handlers":[{"default":true,"last_modified":"13351234567890123","protocol":"mailto",\
            "url":"https://outlook.office.com/mail/deeplink/compose?mailtouri=%s"}]}}
            """, to: "home/.config/chromium/Default/Preferences")
        try sandbox.write(#"{"custom_handlers":{"registered_protocol_"#, to: "home/.config/chromium/Profile 1/Preferences")
    }

    @Test func aFirefoxProfileThatSendsMailtoToAWebSiteIsAWarningWithTheRemedy() throws {
        let sandbox = try Sandbox()
        try browsers(sandbox)
        let (table, _, object) = try check(sandbox)
        #expect(table.stdout.contains("\nBrowsers\n"), "\(table)")
        #expect(row(table, "Firefox (default-release)") == "keeps mailto: links: opens them in Gmail (\(Self.gmail))", "\(table)")
        #expect(row(table, "Firefox (work)") == "hands mailto: links to the desktop's handler (none is set)")
        #expect(row(table, "Chromium (Default)")
            == "keeps mailto: links: opens them in outlook.office.com (https://outlook.office.com/mail/deeplink/compose?mailtouri=%s)")
        let corrupt = sandbox.configHome.appendingPathComponent("chromium/Profile 1/Preferences").path
        #expect(row(table, "Chromium (Profile 1)") == "\(corrupt) cannot be read: not JSON")
        #expect(rows(table, "to change") == [
            "in Firefox: Settings → General → Applications → mailto → “Use … (default)”, the desktop's handler",
            "in Chromium: open chrome://settings/handlers and remove outlook.office.com for email (mailto)",
        ])
        let warnings = rows(table, "warning")
        #expect(warnings.contains("Firefox (default-release) opens mailto: links in Gmail (\(Self.gmail)): they never reach "
            + "mailto-route or your mail program; in Firefox: Settings → General → Applications → mailto → “Use … (default)”, "
            + "the desktop's handler (first, mailto-route webmail import makes Gmail mailto-route's way, in this browser and profile)"),
                "\(warnings)")
        #expect(warnings.filter { $0.hasPrefix("Chromium (Default) opens mailto: links in outlook.office.com") }.count == 1)
        #expect(!warnings.contains { $0.hasPrefix("Firefox (work)") || $0.hasPrefix("Chromium (Profile 1)") })

        let browsers = try #require(object["browsers"] as? [[String: Any]], "\(object)")
        #expect(browsers.map { "\($0["browser"] ?? "")/\($0["profile"] ?? "")/\($0["mailto"] ?? "")" } == [
            "Firefox/work/desktop", "Firefox/default-release/website", "Chromium/Default/website", "Chromium/Profile 1/unreadable",
        ])
        #expect(browsers[1]["name"] as? String == "Gmail")
        #expect(browsers[1]["url"] as? String == Self.gmail)
        #expect(browsers[1]["file"] as? String
            == sandbox.home.appendingPathComponent(".mozilla/firefox/abcd.default-release/handlers.json").path)
        #expect((browsers[1]["fix"] as? String)?.hasPrefix("in Firefox: Settings") == true)
        #expect(browsers[0]["fix"] is NSNull)
        #expect(browsers[3]["error"] as? String == "not JSON")
        #expect((object["warnings"] as? [String])?.filter { $0.contains("opens mailto: links in") }.count == 2)
    }

    @Test func aBrowserThatHandsMailtoToTheDesktopNamesTheHandlerItReaches() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        try sandbox.write("[Profile0]\nName=default\nIsRelative=1\nPath=x.default\n", to: "home/.mozilla/firefox/profiles.ini")
        let (table, _, object) = try check(sandbox)
        // No handlers.json: Firefox stored no choice, and asks the desktop.
        #expect(row(table, "Firefox (default)") == "hands mailto: links to the desktop's handler, Fake Bird", "\(table)")
        #expect(rows(table, "to change").isEmpty)
        #expect(!rows(table, "warning").contains { $0.hasPrefix("Firefox") })
        #expect((object["browsers"] as? [[String: Any]])?.first?["mailto"] as? String == "desktop")
    }

    @Test func noBrowserProfileLeavesTheSectionOut() throws {
        let sandbox = try Sandbox()
        let (table, _, object) = try check(sandbox)
        #expect(!table.stdout.contains("Browsers"), "\(table)")
        #expect((object["browsers"] as? [Any])?.isEmpty == true, "\(object)")
    }
}
