import Foundation
import Testing
import TestSupport

/// `mailto-route route [show | reset]`: the way the chooser's Always kept (`always=` in
/// `[route]`), read and forgotten by the built binary; the file keeps its comments, its other
/// settings and its mode (a file with `password=` stays its owner's alone, or it is refused).
@Suite struct RouteCommandTests {
    @Test func resetForgetsTheWayAndKeepsTheRestOfTheFile() throws {
        let sandbox = try Sandbox()
        let config = try sandbox.write("""
            # Jane's settings
            [route]
            always=thunderbird.desktop
            consent-timeout=60

            [account]
            from=Jane Doe <jane@example.org>
            host=127.0.0.1
            password=secret words

            """, to: "home/.config/mailto-route/config", mode: 0o600)
        let shown = try mailtoRoute(["route"], in: sandbox)
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.hasPrefix("Clicked links always go to thunderbird.desktop"), "\(shown)")
        let json = try jsonObject(try mailtoRoute(["route", "show", "--json"], in: sandbox).stdout)
        #expect(json["always"] as? String == "thunderbird.desktop")

        let reset = try mailtoRoute(["route", "reset"], in: sandbox)
        #expect(reset.status == 0, "\(reset)")
        #expect(reset.stdout == "Forgot always=thunderbird.desktop: the next click asks how to send.\n", "\(reset)")
        let text = try String(contentsOf: config, encoding: .utf8)
        #expect(!text.contains("always="))
        #expect(text.contains("# Jane's settings") && text.contains("consent-timeout=60") && text.contains("password=secret words"), "\(text)")
        let mode = try FileManager.default.attributesOfItem(atPath: config.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // The file still reads: the account sends as before (check names no mistake in it).
        let check = try mailtoRoute(["check", "--json", "--offline"], in: sandbox)
        #expect(!check.stdout.contains("not be group- or world-readable"), "\(check)")

        let again = try mailtoRoute(["route", "reset", "--json"], in: sandbox)
        #expect(again.status == 0)
        #expect(try jsonObject(again.stdout)["forgotten"] as? [String] == [], "\(again)")
    }

    @Test func anAdministratorsWayIsNamedAndStays() throws {
        let sandbox = try Sandbox()
        try sandbox.write("[route]\nalways=webmail:gmail\n", to: "etc/xdg/mailto-route/config", mode: 0o644)
        let reset = try mailtoRoute(["route", "reset"], in: sandbox)
        #expect(reset.status == 0, "\(reset)")
        #expect(reset.stderr.contains("etc/xdg/mailto-route/config is the administrator's; it still applies"), "\(reset)")
    }

    @Test func anUnknownActionIsAUsageError() throws {
        let sandbox = try Sandbox()
        let result = try mailtoRoute(["route", "forget"], in: sandbox)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("mailto-route: unknown route action 'forget'"), "\(result)")
    }
}
