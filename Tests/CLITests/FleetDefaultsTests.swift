import Foundation
import Testing
import TestSupport

/// The system's configuration (`mailto-route/config` under `XDG_CONFIG_DIRS`, the
/// sandbox's `etc/xdg` here) read below the user's, with keys an administrator locked: the
/// built binary, a real SMTP server, and `check` saying where each setting came from.
@Suite struct FleetDefaultsTests {
    /// The organisation's server and policy, locked; the user's file tries to change both
    /// and completes the account with its own address.
    @Test func aLockedKeyWinsOverTheUsersFileAndCheckSaysSo() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        let system = try sandbox.write("""
            [account corp]
            host=127.0.0.1
            port=\(server.port)
            security=none
            locked=host;port;security

            [route]
            policy=ask
            handler=evolution.desktop
            locked=policy

            """, to: "etc/xdg/mailto-route/config", mode: 0o644)
        let user = try sandbox.write("""
            [account corp]
            from=Jane Doe <jane@corp.example>
            host=smtp.elsewhere.example

            [route]
            policy=direct
            handler=thunderbird.desktop

            """, to: "home/.config/mailto-route/config", mode: 0o600)

        let sent = try mailtoRoute(["send", "--to", "joe@example.com", "--subject", "Locked", "--body", "x", "--json"], in: sandbox)
        #expect(sent.status == 0, "\(sent)")
        #expect(try jsonObject(sent.stdout)["account"] as? String == "corp")
        let message = try #require(server.messages.first, "the locked host and port, not the user's")
        #expect(try server.envelope(of: message)["mail_from"] as? String == "jane@corp.example")

        let check = try mailtoRoute(["check", "--json", "--offline"], in: sandbox)
        let json = try jsonObject(check.stdout)
        #expect((json["policy"] as? [String: Any])?["value"] as? String == "ask", "the locked policy, not the user's direct")
        let settings = try #require(json["settings"] as? [String: Any])
        #expect(settings["systemFiles"] as? [String] == [system.path])
        #expect(settings["userFile"] as? String == user.path)
        let values = try #require(settings["values"] as? [[String: Any]])
        func setting(_ group: String, _ key: String) -> [String: Any]? {
            values.first { $0["group"] as? String == group && $0["key"] as? String == key }
        }
        #expect(setting("route", "policy")?["value"] as? String == "ask")
        #expect(setting("route", "policy")?["file"] as? String == system.path)
        #expect(setting("route", "policy")?["locked"] as? Bool == true)
        #expect(setting("route", "policy")?["overriddenIn"] as? String == user.path)
        #expect(setting("route", "handler")?["value"] as? String == "thunderbird.desktop", "not locked: the user's")
        #expect(setting("route", "handler")?["file"] as? String == user.path)
        #expect(setting("account corp", "host")?["value"] as? String == "127.0.0.1")
        let said = "\(user.path): policy= in [route] is not used: it is locked by the administrator in \(system.path)"
        #expect((settings["notices"] as? [String])?.contains(said) == true, "\(settings)")
        #expect((json["warnings"] as? [String])?.contains(said) == true)

        let text = try mailtoRoute(["check", "--offline"], in: sandbox)
        #expect(text.stdout.contains("[route] policy"), "\(text.stdout)")
        #expect(text.stdout.contains("ask (\(system.path), locked by the administrator; the value in \(user.path) is not used)"),
                "\(text.stdout)")
        #expect(text.stdout.contains("corp (default): Jane Doe <jane@corp.example> via 127.0.0.1:\(server.port)"), "\(text.stdout)")
    }
}
