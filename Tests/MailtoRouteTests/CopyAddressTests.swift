import DesktopIntegration
import Foundation
import MailtoRoute
import MIMEMessage
import Outbox
import RouteFakes
import Testing

/// Copy Address in-process: the text a link's recipients become, the plan that chooses it
/// (asked for, or kept with Always), and the report and log line of a copy, with a
/// clipboard that records what it was given.
@Suite struct CopyAddressTests {
    final class FakeClipboard: Clipboard, @unchecked Sendable {
        var copied: [String] = []
        var refusal: DesktopError?

        func copy(_ text: String) throws(DesktopError) {
            if let refusal { throw refusal }
            copied.append(text)
        }
    }

    func session(_ world: FakeWorld, clipboard: FakeClipboard, config: String = "[route]\npolicy=ask\n") -> Session {
        var services = world.services
        services.clipboard = clipboard
        return Session(paths: world.paths, configuration: Configuration(config: ("/fake/config", .success((config, 0o600)))),
                       services: services)
    }

    // MARK: - The text

    @Test func percentDecodedNamesKeptAndDomainsInUnicode() throws {
        let email = try MailtoURL.parse("mailto:%C3%A5sa@example.org,Joe%20<joe@xn--bcher-kva.example>")
        #expect(email.copiedAddresses == "åsa@example.org, Joe <joe@bücher.example>")
    }

    /// Everyone the link writes to, To then Cc then Bcc, each once.
    @Test func ccAndBccFollowToWithoutRepeats() throws {
        let email = try MailtoURL.parse("mailto:ann@example.org?cc=bob@example.org,ann@example.org&bcc=cy@example.org")
        #expect(email.copiedAddresses == "ann@example.org, bob@example.org, cy@example.org")
    }

    /// A name that would split or end a phrase is quoted, so that pasting it reads back the same.
    @Test func aNameWithACommaIsQuoted() throws {
        let email = try MailtoURL.parse("mailto:%22Berg,%20Asa%22%20%3Casa@example.org%3E")
        #expect(email.copiedAddresses == "\"Berg, Asa\" <asa@example.org>")
    }

    /// RFC 3492 §7.1's sample strings decode (GLib's `g_hostname_to_unicode`); what is no
    /// Punycode stays as written.
    @Test func aLabelsDecodeAndOthersStay() {
        #expect(IDNA.unicodeDomain("xn--bcher-kva.example") == "bücher.example")
        #expect(IDNA.unicodeDomain("XN--BCHER-KVA.example") == "bücher.example")
        #expect(IDNA.unicodeDomain("xn--egbpdaj6bu4bxfgehfvwxn.example") == "ليهمابتكلموشعربي؟.example")
        #expect(IDNA.unicodeDomain("xn--ihqwcrb4cv8a8dqg056pqjye.example") == "他们为什么不说中文.example")
        #expect(IDNA.unicodeDomain("xn--.example") == "xn--.example")
        #expect(IDNA.unicodeDomain("xn--a!b.example") == "xn--a!b.example")
        #expect(IDNA.unicodeDomain("example.org") == "example.org")
        // What the encoder writes, the decoder reads back.
        #expect(IDNA.unicodeDomain(IDNA.asciiDomain("jörg.bücher.example")) == "jörg.bücher.example")
    }

    // MARK: - The route

    @Test func copyIsReportedCopiedAndCountedInTheLog() throws {
        let world = try FakeWorld()
        let clipboard = FakeClipboard()
        let session = session(world, clipboard: clipboard)
        let email = try MailtoURL.parse("mailto:Joe%20<joe@xn--bcher-kva.example>?subject=Hi")
        let report = session.route(RouteRequest(email: email, source: .link, forcedPath: .copy))
        #expect(report.result == .copied)
        #expect(report.path == .copy)
        #expect(report.exitStatus == 0)
        #expect(report.copied == "Joe <joe@bücher.example>")
        #expect(clipboard.copied == ["Joe <joe@bücher.example>"])
        #expect(report.summary == "copied to the clipboard: Joe <joe@bücher.example>")
        #expect(RouteReport(json: report.json.serialized) == report)
        // Nothing sent, nothing handed off.
        #expect(world.transport.sent.isEmpty)
        let stats = try session.storage.outcomeLog.stats()
        #expect(stats.byResult.first { $0.0 == "copied" }?.1 == 1)
        #expect(stats.byPath.first { $0.0 == "copy" }?.1 == 1)
    }

    /// No clipboard to hold it: a failure with the reason (exit 1), and no draft of a message
    /// nobody asked to keep.
    @Test func noClipboardFailsWithTheReasonAndKeepsNoDraft() throws {
        let world = try FakeWorld()
        let clipboard = FakeClipboard()
        clipboard.refusal = DesktopError(.permanent, "no desktop session to hold the clipboard")
        let report = session(world, clipboard: clipboard).route(
            RouteRequest(email: try MailtoURL.parse("mailto:ann@example.org"), source: .link, forcedPath: .copy))
        #expect(report.result == .failed)
        #expect(report.exitStatus == 1)
        #expect(report.summary == "not copied: no desktop session to hold the clipboard")
        #expect(report.draft == nil)
        #expect(try world.drafts().isEmpty)
    }

    @Test func aLinkWithNoAddressIsBadInput() throws {
        let world = try FakeWorld()
        let clipboard = FakeClipboard()
        let report = session(world, clipboard: clipboard).route(
            RouteRequest(email: try MailtoURL.parse("mailto:?subject=Hi"), source: .link, forcedPath: .copy))
        #expect(report.result == .failed)
        #expect(report.exitStatus == 65)
        #expect(clipboard.copied.isEmpty)
    }

    // MARK: - The chooser and Always

    /// Copy Address is offered last, never chosen first, and never makes a link ask: an
    /// account alone still opens the sheet.
    @Test func copyIsOfferedLastAndNeverAReasonToAsk() throws {
        let world = try FakeWorld()
        let account = FakeWorld.configText(.usable, policy: "ask")
        let ways = session(world, clipboard: FakeClipboard(), config: account).ways()
        #expect(ways.last?.kind == .copyAddress)
        #expect(ways.last?.id == "copy")
        #expect(Way.preferred(in: ways).map { ways[$0].kind } != .copyAddress)
        #expect(Way.count(ways) == Way.count(ways.dropLast()))
        #expect(Way.preferred(in: [Way(kind: .copyAddress, name: "Copy Address", origin: ""),
                                   Way(kind: .setUp, name: "Set up sending", origin: "")]) == 1)
    }

    /// `always=copy` (the chooser's Always on Copy Address): every link is copied, as the
    /// plan says and `check` reads it.
    @Test func alwaysCopyCopiesEveryLink() throws {
        let world = try FakeWorld()
        let clipboard = FakeClipboard()
        let session = session(world, clipboard: clipboard, config: FakeWorld.configText(.usable, policy: "ask") + "[route]\nalways=copy\n")
        #expect(Way.kind(ofID: "copy") == .copyAddress)
        #expect(session.rememberedWay?.kind == .copyAddress)
        var request = RouteRequest(email: try MailtoURL.parse("mailto:ann@example.org"), source: .link)
        request.sheet = true
        #expect(session.plan(request) == .copy)
        request.sheet = false
        let report = session.route(request)
        #expect(report.result == .copied, "\(report)")
        #expect(clipboard.copied == ["ann@example.org"])
        #expect(world.transport.sent.isEmpty)
    }
}
