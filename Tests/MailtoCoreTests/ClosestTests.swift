import MailtoCore
import Testing

/// `closest(to:among:)`: the "did you mean" of commands, options and config keys.
@Suite struct ClosestTests {
    let keys: Set<String> = [
        "from", "host", "port", "security", "user", "password", "password-command", "ca-file",
        "allow-plaintext", "timeout",
    ]

    @Test(arguments: [
        ("pasword", "password"), ("hots", "host"), ("securty", "security"), ("password_command", "password-command"),
        ("ca_file", "ca-file"), ("timout", "timeout"), ("Host", "host"), ("allow-plain-text", "allow-plaintext"),
    ])
    func oneOrTwoSlipsFindTheKey(typed: String, expected: String) {
        #expect(closest(to: typed, among: keys) == expected)
    }

    @Test func swappedNeighboursAreOneSlip() {
        #expect(closest(to: "sned", among: ["send", "parse", "check"]) == "send")
        #expect(closest(to: "chekc", among: ["send", "parse", "check"]) == "check")
    }

    @Test func farWordsAndExactMatchesSuggestNothing() {
        #expect(closest(to: "smtp-server", among: keys) == nil)
        #expect(closest(to: "x", among: keys) == nil)
        #expect(closest(to: "host", among: keys) == nil)
        #expect(closest(to: "anything", among: [String]()) == nil)
    }

    /// A tie goes to the first in alphabetical order, whatever order a Set iterates in.
    @Test func tiesAreBrokenAlphabetically() {
        for _ in 0..<20 {
            #expect(closest(to: "bat", among: Set(["cat", "bad", "hat"])) == "bad")
        }
    }
}
