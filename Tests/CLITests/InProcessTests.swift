import Foundation
import MailtoRoute
import MailtoRouteCLI
import Outbox
import RouteFakes
import SMTPTransport
import Synchronization
import Testing
import TestSupport

/// The command line in-process, as swift-argument-parser tests `parseAsRoot`: the words,
/// a context with this test's paths and fakes for the server, the mail program and the
/// person, and what it printed and returned. The binary is tested end to end beside these
/// (one run per path and exit status), never instead.
@Suite struct InProcessCommandTests {
    let world: FakeWorld

    init() throws {
        world = try FakeWorld()
    }

    struct Ran {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    func run(_ words: [String]) -> Ran {
        let printed = Mutex<(out: String, err: String)>(("", ""))
        let output = Output { text, descriptor in
            printed.withLock { descriptor == 2 ? ($0.err += text) : ($0.out += text) }
        }
        let context = Context(output: output, paths: world.paths, environment: Session.Environment(), services: world.services)
        let status = CommandLineTool.run(words, context: context)
        return printed.withLock { Ran(status: status, stdout: $0.out, stderr: $0.err) }
    }

    // MARK: - Words

    @Test func helpIsItsSnapshot() throws {
        let snapshot = try String(contentsOf: packageRoot.appendingPathComponent("Tests/CLITests/Snapshots/help.txt"), encoding: .utf8)
        let ran = run(["--help"])
        #expect(ran.status == 0)
        #expect(ran.stdout == snapshot)
    }

    @Test func parsePrintsWhatTheURLHoldsAsJSON() throws {
        let ran = run(["parse", "--json", "mailto:joe@example.com?subject=Hi%20there&from=boss@example.com"])
        #expect(ran.status == 0)
        let json = try jsonObject(ran.stdout)
        #expect(json["to"] as? [String] == ["joe@example.com"])
        #expect(json["subject"] as? String == "Hi there")
        let dropped = try #require(json["dropped"] as? [[String: Any]])
        #expect(dropped.map { $0["name"] as? String } == ["from"])
    }

    @Test(arguments: [
        (["frobnicate"], Int32(64), "unknown command 'frobnicate'"),
        (["parse"], 64, "missing URL"),
        (["parse", "mailto:joe@example.com?subject=%G1"], 65, "at offset 31: invalid percent-escape '%G1'"),
        (["send", "--to", "joe@example.com", "--bogus"], 64, "unknown option '--bogus'"),
    ])
    func mistakesAreOneLineWithTheirExitStatus(words: [String], status: Int32, text: String) {
        let ran = run(words)
        #expect(ran.status == status, "\(ran)")
        #expect(ran.stderr.contains(text), "\(ran.stderr)")
        #expect(ran.stderr.hasPrefix("mailto-route: "), "\(ran.stderr)")
        #expect(ran.stdout.isEmpty)
    }

    // MARK: - send: each result and its exit status

    @Test func sendReportsWhatTheServerSaid() throws {
        try world.writeConfig(.usable)
        let ran = run(["send", "--to", "Asa Berg <asa@example.org>", "--subject", "Hi", "--body", "Hello", "--json"])
        #expect(ran.status == 0, "\(ran)")
        let json = try jsonObject(ran.stdout)
        #expect(json["result"] as? String == "sent")
        #expect(json["messageId"] as? String == world.transport.sent.first?.messageId)
        #expect(world.transport.sent.map(\.recipients) == [["asa@example.org"]])
    }

    @Test func aServerThatCannotTakeItNowIsExit75AndTheMessageWaits() throws {
        try world.writeConfig(.usable)
        world.transport.answers = [.failure(SMTPError(.transient, "connection refused"))]
        let ran = run(["send", "--to", "joe@example.com", "--subject", "Later", "--body", "x"])
        #expect(ran.status == 75, "\(ran)")
        let entry = try #require(try world.session.storage.outbox.list().first)
        #expect(ran.stdout.contains(entry.id), "\(ran.stdout)")
        let listed = run(["outbox", "list", "--json"])
        #expect(listed.status == 0)
        #expect(listed.stdout.contains(entry.id))
    }

    @Test func aRefusedRecipientIsExit2WithADraftForThem() throws {
        try world.writeConfig(.usable)
        world.transport.answers = [.success(SMTPReceipt(
            server: "127.0.0.1:2525", reply: "250 2.0.0 Ok", accepted: ["ann@example.com"],
            refused: [RefusedRecipient(address: "bob@example.com", reply: "550 5.1.1 User unknown")]))]
        let ran = run(["send", "--to", "ann@example.com", "--to", "bob@example.com", "--body", "x", "--json"])
        #expect(ran.status == 2, "\(ran)")
        let draft = try #require(try world.drafts().first)
        #expect(draft.recipients == ["bob@example.com"])
        #expect(try jsonObject(ran.stdout)["draft"] as? String == draft.path)
    }

    @Test func sendingDirectlyWithoutAnAccountIsAConfigurationError() throws {
        let ran = run(["send", "--to", "joe@example.com", "--body", "x", "--direct"])
        #expect(ran.status == 78, "\(ran)")
        #expect(ran.stderr.contains("no account is configured"), "\(ran.stderr)")
        #expect(world.transport.sent.isEmpty)
        #expect(try world.drafts().count == 1, "the message is kept")
    }

    // MARK: - send: which account

    func writeTwoAccounts() throws {
        let url = URL(fileURLWithPath: world.paths.configFile)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = "[account]\nfrom=Jane Doe <jane@example.org>\nhost=smtp.example.org\n"
            + "[account work]\nfrom=Jane Doe <jane.doe@work.example>\nhost=smtp.work.example\n"
        try text.write(to: url, atomically: false, encoding: .utf8)
    }

    @Test(arguments: [["--from", "jane.doe@work.example"], ["--from", "Jane Doe <Jane.Doe@work.example>"], ["--account", "work"]])
    func sendFromPicksTheAccountAndTheReportNamesIt(choice: [String]) throws {
        try writeTwoAccounts()
        let ran = run(["send", "--to", "joe@example.com", "--body", "x", "--json"] + choice)
        #expect(ran.status == 0, "\(ran)")
        let json = try jsonObject(ran.stdout)
        #expect(json["account"] as? String == "work")
        #expect(json["server"] as? String == "smtp.work.example:587")
        #expect(world.transport.sent.map(\.envelopeFrom) == ["jane.doe@work.example"])
    }

    /// An address or name that is no account's is a mistake in the command, said before
    /// anything is routed: never a send from another address, never a draft.
    @Test(arguments: [["--from", "boss@example.org"], ["--account", "home"], ["--from", "a@x", "--account", "work"]])
    func anAccountThatIsNotThereIsAUsageError(choice: [String]) throws {
        try writeTwoAccounts()
        let ran = run(["send", "--to", "joe@example.com", "--body", "x"] + choice)
        #expect(ran.status == 64, "\(ran)")
        if choice.count == 2 {
            #expect(ran.stderr.contains("the accounts are: default (jane@example.org), work (jane.doe@work.example)"), "\(ran.stderr)")
        }
        #expect(world.transport.sent.isEmpty)
        #expect(try world.drafts().isEmpty)
    }

    // MARK: - open: a link is a question first

    @Test func aLinkIsSentOnlyWithConsentAndSavedWithoutIt() throws {
        try world.writeConfig(.usable)
        world.consent.answer = .notConsented("no notification server")
        let refused = run(["open", "mailto:joe@example.com?subject=Hi"])
        #expect(refused.status == 3, "\(refused)")
        #expect(world.transport.sent.isEmpty)

        world.consent.answer = .send
        let consented = run(["open", "mailto:joe@example.com?subject=Hi"])
        #expect(consented.status == 0, "\(consented)")
        #expect(world.transport.sent.count == 1)
        #expect(world.consent.asked.count == 2)
    }
}
