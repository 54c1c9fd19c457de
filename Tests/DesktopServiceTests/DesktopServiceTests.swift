import ComposeSheet
import Foundation
import MailtoCore
import MailtoRoute
import MailtoRouteDesktop
import MainLoop
import Outbox
import RouteFakes
import SMTPTransport
import Testing

// The desktop service's behaviour in-process: its requests, the chooser's answers, the
// sheet's buttons, notifications and their buttons, the outbox it owns and its timers, on a
// fake desktop whose clock the test moves (FakeDesktop). No display, no bus, no wall time.

private let link = "mailto:joe@example.com?subject=Lunch&body=Noon%3F"

@Suite(.onTheMainLoop) struct ClickTests {
    @Test @GLibMainActor func handlerSetAndNoAccountHandsOffWithNoWindow() throws {
        let world = try ServiceWorld(config: "[route]\nhandler=fake.desktop\n")
        world.service.open([link])
        world.desktop.settle()
        #expect(world.desktop.choosers.isEmpty && world.desktop.sheets.isEmpty)
        #expect(world.handedOff.map(\.subject) == ["Lunch"])
        #expect(world.desktop.notification(titled: "Opened in Fake Mail") != nil)
        #expect(world.desktop.holds == 0)
    }

    @Test @GLibMainActor func neitherHandlerNorAccountAsksInTheChooser() throws {
        let world = try ServiceWorld(config: nil)
        world.service.open([link])
        world.desktop.settle()
        #expect(world.desktop.choosers.count == 1)
        #expect(world.desktop.choosers.first?.titles == ["Open in Fake Mail", "Set up sending…", "Copy Address"])
        #expect(world.handedOff.isEmpty && world.sent.isEmpty)
    }

    @Test @GLibMainActor func anAccountAndPolicyAskOpensTheSheetEvenWithAHandler() throws {
        let world = try ServiceWorld(config: "[route]\npolicy=ask\nhandler=fake.desktop\n" + ServiceWorld.account)
        world.service.open([link])
        world.desktop.settle()
        #expect(world.desktop.choosers.isEmpty)
        let sheet = try #require(world.desktop.openSheets.first)
        #expect(sheet.content.email.subject == "Lunch")
        #expect(sheet.content.from == "Jane Doe <jane@example.org>")
        #expect(world.handedOff.isEmpty)
    }

    @Test @GLibMainActor func composeWithoutADisplayIsAnsweredSoTheCommandLineShowsTheSheet() throws {
        let world = try ServiceWorld(config: ServiceWorld.account, program: false)
        world.desktop.showsSheets = false
        let answer = world.compose(link)
        #expect(answer.answer?.status == ServiceProtocol.noDisplay)
        #expect(world.desktop.sheets.isEmpty && world.sent.isEmpty)
    }

    @Test @GLibMainActor func aLinkThatDoesNotReadIsAnswered65() throws {
        let world = try ServiceWorld(config: ServiceWorld.account, program: false)
        let answer = world.compose("mailto:joe@example.com?subject=%ZZ")
        #expect(answer.answer?.status == 65)
        #expect(world.desktop.sheets.isEmpty)
    }

    @Test @GLibMainActor func withoutADisplayALinkIsRoutedAndTheReportSaysNoSheet() throws {
        let world = try ServiceWorld(config: "[route]\npolicy=ask\nhandler=fake.desktop\n" + ServiceWorld.account)
        world.desktop.showsSheets = false
        world.service.open([link])
        world.desktop.settle()
        #expect(world.desktop.sheets.isEmpty)
        let told = try #require(world.desktop.told.last)
        #expect(told.body.contains("no compose sheet"))
        #expect(world.sent.isEmpty, "a link is never sent without the person's consent")
    }
}

@Suite(.onTheMainLoop) struct ChooserTests {
    /// The plan made where the click arrived travels with `Compose`: the service shows the
    /// chooser with the ways the caller found (its environment's mail programs), or the sheet
    /// the caller planned, rather than deciding again.
    @Test @GLibMainActor func theCallersPlanIsCarriedOut() throws {
        let world = try ServiceWorld(config: nil)
        var request = ServiceProtocol.Request(url: link, source: .link)
        request.plan = .choose([ServiceProtocol.OfferedWay(id: "other.desktop", name: "Other Mail", origin: "other.desktop",
                                                           isSystemDefault: true),
                                ServiceProtocol.OfferedWay(id: "", name: "Set up sending", origin: "")])
        world.service.compose(request) { _ in }
        let chooser = try #require(world.desktop.openChoosers.first)
        #expect(chooser.titles == ["Open in Other Mail", "Set up sending…"])
        #expect(chooser.content.preselected == 0)
        chooser.finish(.cancelled)
        world.desktop.settle()
        // Planned as the sheet by the caller: no chooser, though here it would have asked.
        request.plan = .sheet
        world.service.compose(request) { _ in }
        #expect(world.desktop.choosers.count == 1)
        #expect(world.desktop.openSheets.count == 1)
    }


    @Test @GLibMainActor func alwaysForTheProgramIsKeptAndTheNextClickAsksNothing() throws {
        let world = try ServiceWorld(config: nil)
        let first = world.compose(link)
        let chooser = try #require(world.desktop.openChoosers.first)
        chooser.choose("Open in Fake Mail", always: true)
        world.desktop.settle()
        #expect(first.report?.result == .handedOff)
        #expect(world.configText.contains("always=fake.desktop"))
        world.service.open([link])
        world.desktop.settle()
        #expect(world.desktop.choosers.count == 1, "the second click is not asked")
        #expect(world.handedOff.count == 2)
        #expect(world.desktop.notification(titled: "Opened in Fake Mail") != nil)
    }

    /// Webmail in each account that belongs to it (issue 34): the chooser offers Gmail in
    /// the GOA Google account, by its address; Always on it keeps that account's way, and
    /// the handoff goes to it.
    @Test @GLibMainActor func theChooserOffersGmailInItsAccountAndAlwaysKeepsThatAccount() throws {
        let world = try ServiceWorld(config: nil)
        world.world.onlineAccounts.accounts = [FakeOnlineAccounts.google("g1", address: "jane@gmail.com")]
        world.world.mailPrograms.offered = [Way(kind: .program("fake.desktop"), name: "Fake Mail", origin: "fake.desktop"),
                                            Way(kind: .webmail("gmail"), name: "Gmail", origin: "Firefox"),
                                            Way(kind: .webmail("fastmail"), name: "Fastmail", origin: "Firefox")]
        let answer = world.compose(link)
        let chooser = try #require(world.desktop.openChoosers.first)
        #expect(chooser.titles == ["Send from jane@gmail.com", "Open in Fake Mail", "Open in Gmail (jane@gmail.com)", "Open in Fastmail",
                                   "Copy Address"])
        chooser.choose("Open in Gmail (jane@gmail.com)", always: true)
        world.desktop.settle()
        #expect(answer.report?.result == .handedOff)
        #expect(world.world.mailPrograms.handlers.last == "webmail:gmail:jane@gmail.com")
        #expect(world.configText.contains("always=webmail:gmail:jane@gmail.com"), "\(world.configText)")
    }

    @Test @GLibMainActor func justOnceKeepsNothing() throws {
        let world = try ServiceWorld(config: nil)
        _ = world.compose(link)
        try #require(world.desktop.openChoosers.first).choose("Open in Fake Mail")
        world.desktop.settle()
        #expect(!world.configText.contains("always="))
        _ = world.compose(link)
        #expect(world.desktop.choosers.count == 2)
    }

    @Test @GLibMainActor func cancelDoesNothingAndSaysSo() throws {
        let world = try ServiceWorld(config: nil)
        let answer = world.compose(link)
        try #require(world.desktop.openChoosers.first).finish(.cancelled)
        world.desktop.settle()
        #expect(answer.report?.result == .cancelled)
        #expect(answer.answer?.status == ExitStatus.cancelled.rawValue)
        #expect(world.handedOff.isEmpty && world.sent.isEmpty && world.queued.isEmpty)
        #expect(world.desktop.told.isEmpty, "a cancel is not told in a notification")
    }

    @Test @GLibMainActor func setUpSendingOpensTheSheetWithItsFormAndIsNeverKept() throws {
        let world = try ServiceWorld(config: nil)
        _ = world.compose(link)
        let chooser = try #require(world.desktop.openChoosers.first)
        let index = try #require(chooser.titles.firstIndex(of: "Set up sending…"))
        #expect(chooser.content.ways[index].canRemember == false)
        chooser.finish(.way(index, always: true))
        let sheet = try #require(world.desktop.openSheets.first)
        #expect(sheet.content.offersSetup && sheet.content.opensSetup)
        #expect(!world.configText.contains("always="))
        // A link's own sheet with no account offers the form, and waits for its button.
        world.service.open([link])
        world.desktop.settle()
        try #require(world.desktop.openChoosers.last).choose("Open in Fake Mail")
        world.desktop.settle()
        let plain = try ServiceWorld(config: "[route]\nhandler=fake.desktop\n")
        _ = plain.compose("mailto:joe@example.com", source: .compose)
        let composed = try #require(plain.desktop.openSheets.first)
        #expect(composed.content.offersSetup && !composed.content.opensSetup)
    }

    @Test @GLibMainActor func anAccountChosenOpensTheSheetFromIt() throws {
        let world = try ServiceWorld(config: "[account work]\nfrom=Jane Doe <jane@work.example>\nhost=127.0.0.1\nsecurity=none\n"
            + "[account home]\nfrom=Jane <jane@home.example>\nhost=127.0.0.1\nsecurity=none\n")
        // Two accounts and a program: the chooser; the account chosen is the sheet's From.
        world.service.open([link])
        world.desktop.settle()
        let chooser = try #require(world.desktop.openChoosers.first)
        let home = try #require(chooser.titles.first { $0.contains("jane@home.example") })
        chooser.choose(home)
        let sheet = try #require(world.desktop.openSheets.first)
        #expect(sheet.content.from == "Jane <jane@home.example>")
    }
}

@Suite(.onTheMainLoop) struct SheetTests {
    @Test @GLibMainActor func sendFromTheSheetSendsOnceAndTellsIt() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=0\n" + ServiceWorld.account, program: false)
        let answer = world.compose(link)
        let sheet = try #require(world.desktop.openSheets.first)
        #expect(sheet.press(.send) == .finished)
        world.desktop.settle()
        #expect(world.sent.map(\.recipients) == [["joe@example.com"]])
        #expect(answer.report?.result == .sent)
        #expect(world.desktop.notification(titled: "Sent to joe@example.com") != nil)
        #expect(world.desktop.holds == 0)
    }

    @Test @GLibMainActor func aSendThatFailsForGoodStaysOnTheSheet() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=0\n" + ServiceWorld.account, program: false)
        world.world.transport.answers = [.failure(SMTPError(.permanent, "550 no such user"))]
        let answer = world.compose(link)
        let sheet = try #require(world.desktop.openSheets.first)
        guard case .failed = sheet.press(.send) else { Issue.record("the failure did not stay on the sheet"); return }
        #expect(sheet.isOpen && answer.answer == nil)
        #expect(world.queued.isEmpty)
    }

    /// Cancel while "Sending…" shows, the server silent: the send stops, nothing is sent
    /// or queued, the sheet keeps the message and says so, the log says it was cancelled.
    @Test @GLibMainActor func cancelWhileSendingStopsItAndTheSheetKeepsTheMessage() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=0\n" + ServiceWorld.account, program: false)
        world.world.transport.silent = true
        let answer = world.compose(link)
        let sheet = try #require(world.desktop.openSheets.first)
        let (stopped, result) = try sheet.pressThenStop(.send, silent: world.world.transport)
        #expect(stopped)
        #expect(result == .failed("you stopped it before the mail server had it"))
        #expect(sheet.isOpen && answer.answer == nil)
        #expect(world.sent.isEmpty && world.queued.isEmpty)
        let logged = try world.world.paths.storage.outcomeLog.recent(1)
        #expect(logged.map(\.result) == ["cancelled"], "\(logged)")
    }

    /// The same at the end of the Undo time (the held message on its way): it leaves the
    /// outbox unsent, before the connection is dropped, so that nobody sends it later.
    @Test @GLibMainActor func cancelWhileTheHeldSendGoesTakesItOutOfTheOutbox() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=10\n" + ServiceWorld.account, program: false)
        let answer = world.compose(link)
        let sheet = try #require(world.desktop.openSheets.first)
        let (stopped, result) = try stopAtTheEndOfTheHold(sheet, in: world)
        #expect(stopped)
        #expect(result == .failed("you stopped it before the mail server had it"))
        #expect(sheet.isOpen && answer.answer == nil)
        #expect(world.sent.isEmpty && world.queued.isEmpty)
        #expect(try world.outbox.failed().isEmpty)
        // Nothing left for a flush or the service to send.
        world.world.transport.silent = false
        world.desktop.advance(seconds: 3600)
        world.desktop.settle()
        #expect(world.sent.isEmpty)
        let logged = try world.world.paths.storage.outcomeLog.recent(1)
        #expect(logged.map(\.result) == ["cancelled"], "\(logged)")
    }

    /// When the held copy cannot leave the outbox (here its trash is a file), the Stop is
    /// not made: nothing may be left for a later send that the person stopped, so the send
    /// goes on (here the silent server times it out and it stays queued), and its report
    /// says why it could not stop.
    @Test @GLibMainActor func aStopThatCannotTakeTheHeldCopyOutLetsTheSendGoOnAndSaysSo() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=10\n" + ServiceWorld.account, program: false)
        let answer = world.compose(link)
        let sheet = try #require(world.desktop.openSheets.first)
        let (stopped, result) = try stopAtTheEndOfTheHold(sheet, in: world) {
            try world.world.block(world.outbox.directory + "/.trash")
        }
        #expect(stopped, "asked in time; the refusal comes from the sending side")
        #expect(result == .finished)
        #expect(world.queued.count == 1)
        world.desktop.settle()
        let warnings = answer.report?.warnings ?? []
        #expect(warnings.contains { $0.hasPrefix("could not stop sending it: ") }, "\(warnings)")
    }

    /// Send held for its Undo time (10 s), held in the outbox; `meanwhile`; the time over,
    /// the message goes to a server that never answers, and Cancel is pressed while it waits.
    @GLibMainActor func stopAtTheEndOfTheHold(_ sheet: FakeSheet, in world: ServiceWorld, meanwhile: () throws -> Void = {}) throws
        -> (stopped: Bool, result: SheetActionResult) {
        #expect(sheet.press(.send) == .held(seconds: 10))
        #expect(world.queued.count == 1)
        try meanwhile()
        world.desktop.advance(seconds: 10)
        world.world.transport.silent = true
        return try sheet.pressThenStop(.releaseHold, silent: world.world.transport)
    }

    @Test @GLibMainActor func undoInTheNotificationAfterTheWindowClosedSendsNothing() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=10\n" + ServiceWorld.account, program: false)
        let answer = world.compose(link)
        let sheet = try #require(world.desktop.openSheets.first)
        #expect(sheet.press(.send) == .held(seconds: 10))
        sheet.closeWindowWhileHeld()
        let undo = try #require(world.desktop.notifications.values.first { $0.buttons == ["Undo"] })
        let id = try #require(world.queued.first?.id)
        #expect(undo.targets == ["\(DesktopService.undoSendAction) \(id)"])
        world.service.activate(DesktopService.undoSendAction, parameter: id)
        world.desktop.settle()
        #expect(world.queued.isEmpty && world.sent.isEmpty)
        #expect(world.desktop.notifications["outbox-\(id)"] == nil, "the Undo notification is withdrawn")
        #expect(sheet.isOpen && answer.answer == nil, "the sheet is back with the message")
    }

    @Test @GLibMainActor func aHeldSendWhoseWindowClosedGoesOnceAtItsTime() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=10\n" + ServiceWorld.account, program: false)
        let answer = world.compose(link)
        let sheet = try #require(world.desktop.openSheets.first)
        #expect(sheet.press(.send) == .held(seconds: 10))
        sheet.closeWindowWhileHeld()
        world.desktop.advance(seconds: 10)
        #expect(sheet.holdEnds() == .finished)
        world.desktop.settle()
        #expect(world.sent.count == 1 && world.queued.isEmpty)
        #expect(answer.report?.result == .sent)
        #expect(world.desktop.notifications.values.allSatisfy { $0.buttons != ["Undo"] })
        // Undo, now that it went, does nothing.
        world.service.activate(DesktopService.undoSendAction, parameter: answer.report?.outboxId ?? "")
        world.desktop.settle()
        #expect(world.sent.count == 1)
    }

    @Test @GLibMainActor func undoAfterTheServiceRestartedSavesTheHeldMessageAsADraft() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=10\n" + ServiceWorld.account, program: false)
        // A Send held for Undo by a service that is gone since (its claim went with it).
        var request = RouteRequest(email: EmailData(to: ["joe@example.com"], subject: "Lunch", body: "Noon?"), source: .sheet,
                                   forcedPath: .direct)
        request.held = (.undo, world.world.clock.now() + 10)
        let held = world.session().route(request)
        let id = try #require(held.outboxId)
        #expect(held.hold == .undo && world.queued.count == 1)
        world.service.activate(DesktopService.undoSendAction, parameter: id)
        world.desktop.settle()
        #expect(world.queued.isEmpty && world.sent.isEmpty)
        let drafts = try world.world.drafts()
        #expect(drafts.count == 1)
        let told = try #require(world.desktop.notification(titled: "Saved as a draft"))
        #expect(told.buttons == ["Open"])
        #expect(told.targets == ["open-draft \(drafts.first?.path ?? "")"])
        world.service.activate("open-draft", parameter: drafts.first?.path ?? "")
        world.service.activate("open-draft", parameter: "/etc/passwd")
        #expect(world.desktop.shownFiles == [drafts.first?.path], "only a draft of the drafts folder is opened")
    }

    @Test @GLibMainActor func sendLaterWaitsForItsTimeThenGoesOnceAndTheServiceIdlesOut() throws {
        let world = try ServiceWorld(config: ServiceWorld.account, program: false)
        let answer = world.compose(link)
        let sheet = try #require(world.desktop.openSheets.first)
        #expect(sheet.press(.sendLater(.inOneHour)) == .finished)
        world.desktop.settle()
        #expect(answer.report?.result == .queued)
        let entry = try #require(world.queued.first)
        #expect(entry.nextAttempt.secondsSinceEpoch == world.world.clock.time.secondsSinceEpoch + 3_600)
        let told = try #require(world.desktop.notification(titled: "Sending to joe@example.com at"))
        #expect(told.buttons == ["Send now"])
        // The service owns the outbox: it stays, and looks at least once a minute.
        #expect(world.desktop.holds == 1)
        #expect(try #require(world.desktop.nextTimer) <= DesktopService.longestWait)
        world.desktop.advance(seconds: 3_599)
        #expect(world.sent.isEmpty, "nothing goes before its time")
        world.desktop.advance(seconds: 61)
        #expect(world.sent.count == 1 && world.queued.isEmpty)
        #expect(world.desktop.notification(titled: "Sent to joe@example.com") != nil)
        #expect(world.desktop.holds == 0, "nothing queued: the service may idle out")
        world.desktop.advance(seconds: 3_600)
        #expect(world.sent.count == 1)
    }

    @Test @GLibMainActor func sendNowInTheNotificationSendsAHeldMessageOnce() throws {
        let world = try ServiceWorld(config: ServiceWorld.account, program: false)
        _ = world.compose(link)
        try #require(world.desktop.openSheets.first).press(.sendLater(.tomorrowMorning))
        world.desktop.settle()
        let id = try #require(world.queued.first?.id)
        world.service.activate("retry-outbox", parameter: id)
        world.service.activate("retry-outbox", parameter: id)
        world.desktop.settle()
        #expect(world.sent.count == 1 && world.queued.isEmpty)
        #expect(world.desktop.holds == 0)
    }
}

@Suite(.onTheMainLoop) struct OutboxTests {
    @Test @GLibMainActor func aQueuedMessageIsRetriedAMinuteLaterAndToldOnce() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=0\n" + ServiceWorld.account, program: false)
        world.world.transport.answers = [.failure(SMTPError(.transient, "421 try later", cause: .connect))]
        let answer = world.compose(link)
        try #require(world.desktop.openSheets.first).press(.send)
        world.desktop.settle()
        #expect(answer.report?.result == .queued)
        let id = try #require(world.queued.first?.id)
        let told = try #require(world.desktop.notifications["outbox-\(id)"])
        #expect(told.title.hasPrefix("Not sent yet"))
        #expect(told.buttons == ["Retry now"])
        #expect(world.desktop.holds == 1)
        world.desktop.advance(seconds: 59)
        #expect(world.sent.count == 1, "the failed attempt only")
        world.desktop.advance(seconds: 120)
        #expect(world.sent.count == 2 && world.queued.isEmpty)
        #expect(world.desktop.notifications["outbox-\(id)"]?.title == "Sent to joe@example.com")
        #expect(world.desktop.holds == 0)
    }

    @Test @GLibMainActor func retryNowOfAMessageAlreadySentSendsNothingAndWithdrawsIt() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=0\n" + ServiceWorld.account, program: false)
        world.world.transport.answers = [.failure(SMTPError(.transient, "421 try later", cause: .connect))]
        _ = world.compose(link)
        try #require(world.desktop.openSheets.first).press(.send)
        world.desktop.settle()
        let id = try #require(world.queued.first?.id)
        world.service.activate("retry-outbox", parameter: id)
        world.desktop.settle()
        #expect(world.sent.count == 2 && world.queued.isEmpty)
        world.service.activate("retry-outbox", parameter: id)
        world.desktop.settle()
        #expect(world.sent.count == 2)
    }

    @Test @GLibMainActor func aServiceStartedWithAQueuedMessageOwnsTheOutbox() throws {
        let world = try ServiceWorld(config: ServiceWorld.account, program: false)
        // A run of the command line queued it (the server down), then asked the service.
        world.world.transport.answers = [.failure(SMTPError(.transient, "421 try later", cause: .connect))]
        _ = world.world.session.route(RouteRequest(email: EmailData(to: ["joe@example.com"], subject: "Figures", body: "x"), source: .send))
        #expect(world.queued.count == 1)
        world.service.start()
        #expect(world.desktop.holds == 1)
        world.desktop.advance(seconds: DesktopService.longestWait + 60)
        #expect(world.sent.count == 2 && world.queued.isEmpty)
        #expect(world.desktop.holds == 0)
    }

    @Test @GLibMainActor func withoutAnythingQueuedTheServiceDoesNotStay() throws {
        let world = try ServiceWorld(config: ServiceWorld.account, program: false)
        world.service.start()
        world.service.activate(SheetService.ownOutboxAction, parameter: "")
        world.desktop.settle()
        #expect(world.desktop.holds == 0)
    }

    @Test @GLibMainActor func oneRequestsProgramLeavesTheOutboxToTheService() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=0\n" + ServiceWorld.account, role: .oneRequest, program: false)
        world.world.transport.answers = [.failure(SMTPError(.transient, "421 try later", cause: .connect))]
        let answer = world.compose(link)
        try #require(world.desktop.openSheets.first).press(.send)
        world.desktop.settle()
        #expect(answer.report?.result == .queued)
        #expect(world.desktop.holds == 0, "it does not stay for the outbox")
        #expect(world.outboxAsks == 1, "it asked the service to own it")
        #expect(world.desktop.told.isEmpty, "no notification whose button would outlive it")
        #expect(world.world.notifier.shown.map(\.summary).contains { $0.hasPrefix("Not sent yet") })
    }
}

@Suite(.onTheMainLoop) struct PortalTests {
    @GLibMainActor private func request(_ world: ServiceWorld, app: String = "org.example.Writer") throws -> PortalEmailRequest {
        let file = try world.world.file("report.pdf", "%PDF")
        return PortalEmailRequest(appID: app, to: ["Joe <joe@example.com>"], subject: "Report", attachments: [file])
    }

    @Test @GLibMainActor func theSheetListsTheApplicationsFileTickedAndRespondsWhenSent() throws {
        let world = try ServiceWorld(config: "[route]\nundo-send=0\n" + ServiceWorld.account, program: false)
        let responses = ResponseBox()
        _ = world.service.composeEmail(try request(world)) { responses.codes.append($0) }
        let sheet = try #require(world.desktop.openSheets.first)
        #expect(sheet.content.requestingApplication == "org.example.Writer")
        #expect(sheet.content.email.attachments.count == 1)
        #expect(responses.codes.isEmpty, "nothing is answered before the person acts")
        sheet.press(.send)
        world.desktop.settle()
        #expect(responses.codes == [0])
        #expect(world.sent.count == 1)
    }

    @Test @GLibMainActor func cancelRespondsOne() throws {
        let world = try ServiceWorld(config: ServiceWorld.account, program: false)
        let responses = ResponseBox()
        _ = world.service.composeEmail(try request(world)) { responses.codes.append($0) }
        try #require(world.desktop.openSheets.first).cancel()
        world.desktop.settle()
        #expect(responses.codes == [1])
    }

    @Test @GLibMainActor func closeOfTheRequestWithdrawsItsChooser() throws {
        let world = try ServiceWorld(config: nil)
        let responses = ResponseBox()
        let handle = world.service.composeEmail(try request(world)) { responses.codes.append($0) }
        #expect(world.desktop.openChoosers.count == 1)
        handle?.withdraw()
        world.desktop.settle()
        #expect(responses.codes == [1])
        #expect(world.handedOff.isEmpty)
    }

    @Test @GLibMainActor func alwaysIsKeptForTheApplicationOnly() throws {
        let world = try ServiceWorld(config: nil)
        let responses = ResponseBox()
        _ = world.service.composeEmail(try request(world)) { responses.codes.append($0) }
        try #require(world.desktop.openChoosers.first).choose("Open in Fake Mail", always: true)
        world.desktop.settle()
        #expect(responses.codes == [0])
        #expect(world.handedOff.first?.attachments.count == 1, "the application's file goes with the handoff")
        _ = world.service.composeEmail(try request(world)) { responses.codes.append($0) }
        world.desktop.settle()
        #expect(world.desktop.choosers.count == 1, "the same application is not asked again")
        #expect(responses.codes == [0, 0])
        _ = world.service.composeEmail(try request(world, app: "org.example.Other")) { responses.codes.append($0) }
        #expect(world.desktop.choosers.count == 2, "another application is")
        world.service.open([link])
        world.desktop.settle()
        #expect(world.desktop.choosers.count == 3, "and so is a link")
    }

    /// Someone who never registered mailto-route, whose Email portal it serves all the same
    /// (the package's backend on xdg-desktop-portal 1.16): their mail program gets the
    /// message and the file, as from GTK's backend, with no window of mailto-route's, even
    /// with an account and `policy=ask`; the application hears once it is handed over.
    @Test @GLibMainActor func notChosenHandsTheFilesToTheDesktopsMailProgram() throws {
        let world = try ServiceWorld(config: "[route]\npolicy=ask\n" + ServiceWorld.account)
        world.world.mailPrograms.chosen = false
        try expectFileHandedOffWithNoWindow(world)
        #expect(world.sent.isEmpty)
    }

    /// Not chosen and no mail program to go to: routed as for anyone, in the chooser.
    @Test @GLibMainActor func notChosenWithNoMailProgramAsksInTheChooser() throws {
        let world = try ServiceWorld(config: nil, program: false)
        world.world.mailPrograms.chosen = false
        let responses = ResponseBox()
        _ = world.service.composeEmail(try request(world)) { responses.codes.append($0) }
        world.desktop.settle()
        #expect(world.desktop.openChoosers.count == 1)
        #expect(responses.codes.isEmpty)
    }

    @Test @GLibMainActor func policyHandoffHandsTheFilesOnWithNoWindow() throws {
        let world = try ServiceWorld(config: "[route]\npolicy=handoff\n" + ServiceWorld.account)
        try expectFileHandedOffWithNoWindow(world)
    }

    /// An application's ComposeEmail with a file goes to the mail program with it, with no
    /// sheet or chooser, and the application hears 0.
    @GLibMainActor private func expectFileHandedOffWithNoWindow(_ world: ServiceWorld) throws {
        let responses = ResponseBox()
        let handle = world.service.composeEmail(try request(world)) { responses.codes.append($0) }
        world.desktop.settle()
        #expect(handle == nil && world.desktop.sheets.isEmpty && world.desktop.choosers.isEmpty)
        #expect(responses.codes == [0])
        #expect(world.handedOff.first?.attachments.count == 1)
    }
}

@Suite(.onTheMainLoop) struct SignInTests {
    @Test @GLibMainActor func signInAgainIsToldWithAButtonThatOpensOnlineAccounts() throws {
        let world = try ServiceWorld(config: nil)
        world.world.onlineAccounts.accounts = [FakeOnlineAccounts.google("account_1", address: "jane@gmail.com")]
        let name = try #require(world.session().accounts.first?.name)
        world.service.activate(SheetService.signInAgainAction, parameter: name)
        world.desktop.settle()
        let told = try #require(world.desktop.notifications["sign-in-\(name)"])
        #expect(told.urgent)
        #expect(told.buttons == ["Sign in again"])
        #expect(told.targets == ["\(DesktopService.openOnlineAccountsAction) account_1"])
        // An account that is not of GNOME Online Accounts has nothing to sign in again to.
        world.service.activate(SheetService.signInAgainAction, parameter: "nobody")
        world.desktop.settle()
        #expect(world.desktop.told.count == 1)
    }
}

final class ResponseBox: @unchecked Sendable {
    var codes: [UInt32] = []
}

/// The click's activation token reaches the first window its request opens, and only that
/// one: a desktop honours a token once, and the sheet a chooser's answer opens later must not
/// take the focus back from wherever the person has gone.
@Suite(.onTheMainLoop) struct ClickTokenTests {
    @GLibMainActor func compose(_ world: ServiceWorld, token: String?) {
        var request = ServiceProtocol.Request(url: link, source: .link)
        request.activationToken = token
        world.service.compose(request) { _ in }
        world.desktop.settle()
    }

    @Test @GLibMainActor func theChooserTakesTheTokenAndTheSheetAfterItNone() throws {
        let world = try ServiceWorld(config: nil)
        compose(world, token: "click-1")
        let chooser = try #require(world.desktop.openChoosers.first)
        #expect(chooser.activationToken == "click-1")
        chooser.choose("Set up sending…")
        world.desktop.settle()
        let sheet = try #require(world.desktop.openSheets.first)
        #expect(sheet.activationToken == nil)
    }

    @Test @GLibMainActor func theSheetTakesTheTokenWhenNoChooserAsks() throws {
        let world = try ServiceWorld(config: "[route]\npolicy=ask\nhandler=fake.desktop\n" + ServiceWorld.account)
        compose(world, token: "click-2")
        #expect(world.desktop.choosers.isEmpty)
        #expect(world.desktop.openSheets.map(\.activationToken) == ["click-2"])
    }

    @Test @GLibMainActor func eachClickBringsItsOwnToken() throws {
        let world = try ServiceWorld(config: "[route]\npolicy=ask\nhandler=fake.desktop\n" + ServiceWorld.account)
        compose(world, token: "click-3")
        compose(world, token: nil)
        compose(world, token: "")
        #expect(world.desktop.openSheets.map(\.activationToken) == ["click-3", nil, nil])
    }
}
