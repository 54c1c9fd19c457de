import Foundation
import MailtoRoute
import Outbox
import RouteFakes
import SMTPTransport
import Testing

/// The Router, the submit step and keep-as-draft in-process: a real Session on a
/// temporary directory (the outbox and drafts on disk), with fakes for what it reaches
/// outside the process (`Services`). The end-to-end tests keep one run per path with the
/// real server, mail program and notification server; these go through every branch.
@Suite struct RoutingTests {
    let world: FakeWorld

    init() throws {
        world = try FakeWorld()
    }

    // MARK: - A link under policy=ask: consent first (rule 1)

    @Test func aLinkIsSentOnlyAfterTheUserSaysSend() throws {
        world.consent.answer = .send
        let report = world.route(link: "mailto:joe@example.com?subject=Lunch&body=At%20noon", account: .usable)
        #expect(report.result == .sent)
        #expect(report.path == .direct)
        let question = try #require(world.consent.asked.first)
        #expect(question.fields.first { $0.label == "To" }?.value == "joe@example.com")
        #expect(question.fields.first { $0.label == "Subject" }?.value == "Lunch")
        #expect(question.server == "127.0.0.1:2525")
        #expect(world.transport.sent.map(\.recipients) == [["joe@example.com"]])
        #expect(report.messageId == world.transport.sent.first?.messageId)
    }

    @Test(arguments: [ConsentDecision.cancel, .notConsented("the notification was closed")])
    func aLinkTheUserDidNotConsentToIsNeverSent(answer: ConsentDecision) throws {
        world.consent.answer = answer
        world.mailPrograms.program = FakeMailProgram()
        let report = world.route(link: "mailto:joe@example.com?subject=Hi", account: .usable)
        #expect(world.transport.sent.isEmpty)
        if answer == .cancel {
            #expect(report.result == .cancelled)
            #expect(world.mailPrograms.program?.taken.isEmpty == true)
            #expect(try world.drafts().isEmpty)
        } else {
            // Rule 1: where consent cannot be had, the mail program gets it instead.
            #expect(report.result == .handedOff)
            #expect(world.mailPrograms.program?.taken.map(\.subject) == ["Hi"])
            #expect(report.warnings.contains { $0.contains("not sent directly") && $0.contains("the notification was closed") })
        }
    }

    @Test func withoutConsentAndWithoutAMailProgramTheLinkIsSavedAsADraft() throws {
        world.consent.answer = .notConsented("no terminal, and no notification server")
        world.mailPrograms.problem = "no program handles mailto: links"
        let report = world.route(link: "mailto:joe@example.com?subject=Hi", account: .usable)
        #expect(report.result == .saved)
        #expect(world.transport.sent.isEmpty)
        let draft = try #require(try world.drafts().first)
        #expect(report.draft == draft.path)
        #expect(draft.recipients == ["joe@example.com"])
    }

    @Test func withoutAnAccountALinkGoesToTheMailProgramWithoutAQuestion() throws {
        world.mailPrograms.program = FakeMailProgram()
        let report = world.route(link: "mailto:joe@example.com", account: .none)
        #expect(report.result == .handedOff)
        #expect(report.handler?.id == "fake.desktop")
        #expect(world.consent.asked.isEmpty)
    }

    // MARK: - The submit step

    @Test func aServerThatCannotTakeItNowQueuesItWithItsMessageID() throws {
        world.transport.answers = [.failure(SMTPError(.transient, "connection refused"))]
        let report = world.route(send: ["joe@example.com"])
        #expect(report.result == .queued)
        let entry = try #require(try world.session.storage.outbox.list().first)
        #expect(report.outboxId == entry.id)
        #expect(entry.messageId == report.messageId)
        #expect(entry.recipients == ["joe@example.com"])
        #expect(try world.drafts().isEmpty, "a queued message is kept once, in the outbox")
    }

    @Test func aServerThatRefusesItForGoodLeavesADraft() throws {
        world.transport.answers = [.failure(SMTPError(.permanent, "message refused", reply: "554 5.7.1 Rejected"))]
        let report = world.route(send: ["joe@example.com"])
        #expect(report.result == .failed)
        #expect(report.error?.kind == .permanent)
        #expect(report.reply == "554 5.7.1 Rejected")
        #expect(try world.drafts().map(\.path) == [report.draft])
        #expect(try world.session.storage.outbox.list().isEmpty)
    }

    /// 550 for one, 450 for another, 250 for the rest: sent; the refused one has a draft
    /// addressed to them alone, the deferred one is queued alone (the others must not get
    /// it twice).
    @Test func refusedAndDeferredRecipientsAreKeptApart() throws {
        world.transport.answers = [.success(SMTPReceipt(
            server: "127.0.0.1:2525", reply: "250 2.0.0 Ok", accepted: ["ann@example.com"],
            refused: [RefusedRecipient(address: "bob@example.com", reply: "550 5.1.1 User unknown"),
                      RefusedRecipient(address: "cy@example.com", reply: "450 4.2.0 Try again later")]))]
        let report = world.route(send: ["ann@example.com", "bob@example.com", "cy@example.com"])
        #expect(report.result == .sent)
        let draft = try #require(try world.drafts().first)
        #expect(draft.recipients == ["bob@example.com"])
        #expect(report.draft == draft.path)
        let queued = try #require(try world.session.storage.outbox.list().first)
        #expect(queued.recipients == ["cy@example.com"])
        #expect(report.outboxId == queued.id)
        #expect(queued.messageId == report.messageId)
    }

    @Test func whenNeitherServerNorOutboxNorDraftsCanKeepItTheStorageIsTheError() throws {
        world.transport.answers = [.failure(SMTPError(.permanent, "message refused"))]
        // The drafts directory cannot be made: a file stands where it would be.
        try world.block(world.session.storage.drafts.directory)
        let report = world.route(send: ["joe@example.com"])
        #expect(report.result == .failed)
        #expect(report.error?.kind == .configuration)
        #expect(report.error?.message.contains("could not be kept anywhere") == true, "\(String(describing: report.error))")
    }

    /// The run's one connection carries the message and then what is due in the outbox.
    @Test func theQuickFlushSendsWhatIsDueOverTheSameConnection() throws {
        let queued = OutboxMessage(bytes: Array("Subject: earlier\r\n\r\nearlier\r\n".utf8), envelopeFrom: "jane@example.org",
                                   recipients: ["ann@example.com"], messageId: "<earlier@example.org>", server: nil, subject: "earlier")
        _ = try world.session.storage.outbox.enqueue(queued, now: Timestamp(secondsSinceEpoch: 1_000))
        world.clock.time = Timestamp(secondsSinceEpoch: 1_000_000)
        let report = world.run(send: ["joe@example.com"])
        #expect(report.result == .sent)
        #expect(world.transport.connections == 1)
        #expect(world.transport.sent.map(\.recipients) == [["joe@example.com"], ["ann@example.com"]])
        #expect(try world.session.storage.outbox.list().isEmpty)
    }

    /// What a notification says first: whom it was sent to, by name where one was given.
    @Test func theHeadlineNamesWhomTheMessageIsTo() throws {
        var email = EmailData(to: ["asa@example.org", "bo@example.org"], subject: "Hi", body: "x")
        email.names = ["asa@example.org": "Asa Berg"]
        let sent = world.session.route(RouteRequest(email: email, source: .send))
        #expect(sent.headline == "Sent to Asa Berg and 1 more")
        world.transport.answers = [.failure(SMTPError(.transient, "cannot connect to 127.0.0.1:587", cause: .connect,
                                                      detail: "Failed to connect to 127.0.0.1 port 587 after 0 ms: Couldn't connect to server"))]
        let queued = world.session.route(RouteRequest(email: email, source: .send))
        // What happened and what will happen, in the project's words; libcurl's are the detail.
        let retry = try #require(queued.nextAttempt)
        #expect(queued.headline == "Not sent yet: the mail server is not answering. It will be tried again at \(retry.localTimeText).")
        #expect(queued.error?.detail?.hasPrefix("Failed to connect") == true)
        #expect(!queued.notificationLines.joined().contains("Failed to connect"), "\(queued.notificationLines)")
        #expect(queued.readableLines.first == queued.summary, "the details start with the command line's line")
    }

    /// Every sending path remembers whom it went to, with the name, for the sheet's
    /// completion; a recipient the server refused is not remembered.
    @Test func whomAMessageWentToIsRemembered() throws {
        world.transport.answers = [.success(SMTPReceipt(
            server: "127.0.0.1:2525", reply: "250 2.0.0 Ok", accepted: ["asa@example.org"],
            refused: [RefusedRecipient(address: "bob@example.org", reply: "550 5.1.1 User unknown")]))]
        var email = EmailData(to: ["asa@example.org", "bob@example.org"], subject: "Hi", body: "x")
        email.names = ["asa@example.org": "Asa Berg"]
        _ = world.session.route(RouteRequest(email: email, source: .send))
        _ = world.session.route(RouteRequest(email: EmailData(to: ["asa@example.org"], subject: "Again", body: "y"), source: .send))
        let history = world.session.storage.recipients
        let entries = try history.entries()
        #expect(entries.map(\.address) == ["asa@example.org"])
        #expect(entries.first?.count == 2 && entries.first?.name == "Asa Berg")
        #expect(history.matching("berg", in: entries).map(\.readable) == ["Asa Berg <asa@example.org>"])
        try history.forget("ASA@example.org")
        #expect(try history.entries().isEmpty)
    }

    // MARK: - The handoff path

    @Test func aMailProgramThatCannotStartLeavesADraftThatSaysWhy() throws {
        var program = FakeMailProgram()
        program.failure = DesktopError(.permanent, "Fake Mail exited at once")
        world.mailPrograms.program = program
        let report = world.route(link: "mailto:joe@example.com?subject=Hi", account: .none)
        #expect(report.result == .saved)
        #expect(report.warnings.contains("not handed off: Fake Mail exited at once"), "\(report.warnings)")
        #expect(try world.drafts().count == 1)
    }

    @Test func whatTheMailProgramDidNotGetIsKeptWholeAsADraft() throws {
        var program = FakeMailProgram()
        program.notCarried = ["report.pdf"]
        world.mailPrograms.program = program
        var request = RouteRequest(email: try MailtoURL.parse("mailto:joe@example.com?subject=Figures"), source: .send)
        request.email.attachments = [.file(try world.file("report.pdf", "%PDF-1.4\n"))]
        request.forcedPath = .handoff
        let report = world.session.route(request)
        #expect(report.result == .handedOff)
        let draft = try #require(report.draft)
        #expect(try String(contentsOfFile: draft, encoding: .utf8).contains("report.pdf"))
    }

    @Test func aForcedHandoffWithNowhereToGoFailsAndKeepsTheMessage() throws {
        world.mailPrograms.problem = "no program handles mailto: links"
        var request = RouteRequest(email: try MailtoURL.parse("mailto:joe@example.com?subject=Hi"), source: .send)
        request.forcedPath = .handoff
        let report = world.session.route(request)
        #expect(report.result == .failed)
        #expect(report.path == .handoff)
        #expect(report.error?.message == "cannot hand off: no program handles mailto: links")
        #expect(try world.drafts().count == 1)
    }
}
