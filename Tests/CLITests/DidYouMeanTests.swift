import Foundation
import Testing
import TestSupport

/// "did you mean": an address without its scheme, a command or option with a slip of the
/// finger, a misspelt key in the config file.
@Suite struct DidYouMeanTests {
    @Test func aBareAddressSuggestsItsMailtoURL() throws {
        let sandbox = try Sandbox()
        let result = try mailtoRoute(["joe@example.org"], in: sandbox)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("mailto-route: unknown command 'joe@example.org'; did you mean 'mailto:joe@example.org'?\n"))
        // Nothing was routed: no draft, nothing logged as a run.
        #expect(sandbox.drafts.isEmpty)
    }

    @Test(arguments: [
        (["sned", "--to", "a@example.org"], "unknown command 'sned'; did you mean 'send'?"),
        (["outbx", "list"], "unknown command 'outbx'; did you mean 'outbox'?"),
        (["parse", "--jsn", "mailto:a@x"], "unknown option '--jsn'; did you mean '--json'?"),
        (["send", "--subjet", "Hi"], "unknown option '--subjet'; did you mean '--subject'?"),
        (["--verison"], "unknown option '--verison'; did you mean '--version'?"),
        (["frobnicate"], "unknown command 'frobnicate'"),
    ])
    func slipsOfTheFingerAreNamedWithTheNearestWord(arguments: [String], message: String) throws {
        let sandbox = try Sandbox()
        let result = try mailtoRoute(arguments, in: sandbox)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == "mailto-route: \(message)")
    }

    /// The account's keys are msmtp-like words; a misspelt one names the key it is near,
    /// and the message is kept as a draft (exit 78) as for any broken account.
    @Test func aMisspeltAccountKeyNamesTheKeyItIsNear() throws {
        let sandbox = try Sandbox()
        let config = try sandbox.write(
            "[account]\nfrom=jane@example.org\nhost=127.0.0.1\nsecurty=none\n", to: "home/.config/mailto-route/config", mode: 0o600)
        let result = try mailtoRoute(["send", "--direct", "--to", "joe@example.org", "--json"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        let error = try #require(try jsonObject(result.stdout)["error"] as? [String: Any])
        #expect(error["message"] as? String
            == "cannot send directly: \(config.path): unknown key 'securty' in [account]; did you mean 'security'?")
        // A key too far from every known one is named alone.
        try sandbox.write("[account]\nfrom=jane@example.org\nhost=127.0.0.1\nsmtp-server=x\n",
                          to: "home/.config/mailto-route/config", mode: 0o600)
        let far = try mailtoRoute(["send", "--direct", "--to", "joe@example.org"], in: sandbox)
        #expect(far.status == 78)
        #expect(far.stderr.contains("unknown key 'smtp-server' in [account]\n"), "\(far)")
    }
}
