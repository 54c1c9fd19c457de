import ComposeSheet
import Foundation
import MailtoCore
import MailtoRoute
import MailtoRouteDesktop
import MainLoop
import Outbox
import RouteFakes
import TestSupport
import Testing

// A desktop for the service in-process: what a person would see (sheets, choosers,
// notifications) recorded, a main loop that the test runs, and timers on the world's fake
// clock, so that "retried 60 s later" is a tick.

@GLibMainActor
final class FakeDesktop: DesktopPresenter {
    struct Notification: Equatable {
        var id: String
        var title: String
        var body: String
        var urgent: Bool
        var buttons: [String]
        var targets: [String]
    }

    let clock: FakeClock
    var showsSheets = true
    /// The notifications on screen now, by id (a later one with the same id replaced it).
    private(set) var notifications: [String: Notification] = [:]
    /// Every notification sent, in order.
    private(set) var told: [Notification] = []
    private(set) var sheets: [FakeSheet] = []
    private(set) var choosers: [FakeChooser] = []
    private(set) var shownFiles: [String] = []
    /// The holds on the program: 0 when it may idle out.
    private(set) var holds = 0
    private var mainLoop: [@GLibMainActor () -> Void] = []
    private var timers: [(due: Int64, order: Int, work: @GLibMainActor () -> Void)] = []
    private var timerCount = 0

    init(clock: FakeClock) {
        self.clock = clock
    }

    var openSheets: [FakeSheet] { sheets.filter(\.isOpen) }
    var openChoosers: [FakeChooser] { choosers.filter { $0.answer == nil } }
    /// When the next timer is due, in seconds from now.
    var nextTimer: Int64? { timers.map(\.due).min().map { $0 - clock.time.secondsSinceEpoch } }

    func open(_ content: SheetContent, host: any SheetHost, recovery: RecoveryStore?, activationToken: String?) -> any SheetWindow {
        let sheet = FakeSheet(content: content, host: host, activationToken: activationToken)
        sheets.append(sheet)
        return sheet
    }

    func openChooser(_ content: ChooserContent, activationToken: String?,
                     answered: @escaping (ChooserAnswer) -> Void) -> any SheetWindow {
        let chooser = FakeChooser(content: content, activationToken: activationToken, answered: answered)
        choosers.append(chooser)
        return chooser
    }

    func notify(id: String, title: String, body: String, urgent: Bool, buttons: [NotificationButton]) {
        let notification = Notification(id: id, title: title, body: body, urgent: urgent, buttons: buttons.map(\.label),
                                        targets: buttons.map { "\($0.action) \($0.target)" })
        notifications[id] = notification
        told.append(notification)
    }

    func withdrawNotification(id: String) {
        notifications[id] = nil
    }

    func showFile(_ path: String) throws(ServiceError) {
        shownFiles.append(path)
    }

    /// What Copy Address put on the clipboard, while this program owns it (it holds itself
    /// meanwhile, as the application does).
    private(set) var clipboard: String?

    func copy(_ text: String) throws(ServiceError) {
        guard showsSheets else { throw ServiceError("no display") }
        if clipboard == nil { hold() }
        clipboard = text
    }

    /// Another program takes the clipboard: the hold ends.
    func clipboardTaken() {
        guard clipboard != nil else { return }
        clipboard = nil
        release()
    }

    func hold() { holds += 1 }

    func release() {
        precondition(holds > 0, "a release without its hold")
        holds -= 1
    }

    /// The work runs at once (the test's thread stands for the worker); its `then` goes on
    /// the main loop, as GLib's idle source would take it there.
    func inBackground<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then: @escaping @GLibMainActor (Result) -> Void) {
        hold()
        let result = work()
        mainLoop.append { [self] in
            then(result)
            release()
        }
    }

    func after(seconds: UInt32, _ work: @escaping @GLibMainActor () -> Void) {
        timerCount += 1
        timers.append((clock.time.secondsSinceEpoch + Int64(seconds), timerCount, work))
    }

    /// Runs what waits on the main loop until nothing does.
    func settle() {
        while !mainLoop.isEmpty {
            mainLoop.removeFirst()()
        }
    }

    /// Moves the clock on by `seconds`, running each timer as its time comes, in order, and
    /// the main loop after each.
    func advance(seconds: Int64) {
        let end = clock.time.secondsSinceEpoch + seconds
        settle()
        while let next = timers.min(by: { ($0.due, $0.order) < ($1.due, $1.order) }), next.due <= end {
            timers.removeAll { $0.order == next.order }
            clock.time = Timestamp(secondsSinceEpoch: max(clock.time.secondsSinceEpoch, next.due))
            next.work()
            settle()
        }
        clock.time = Timestamp(secondsSinceEpoch: end)
    }

    /// The notification whose title is `title`'s, if one is on screen.
    func notification(titled prefix: String) -> Notification? {
        notifications.values.first { $0.title.hasPrefix(prefix) }
    }
}

/// A compose sheet as the person uses it: its buttons call the host as the real sheet's do,
/// on the worker (`perform`) or the main loop (the rest).
@GLibMainActor
final class FakeSheet: SheetWindow {
    let content: SheetContent
    let host: any SheetHost
    let activationToken: String?
    private(set) var isOpen = true
    /// The Send held now (its Undo time running), and whether its window was closed meanwhile.
    private(set) var held = false
    private(set) var windowClosedWhileHeld = false
    private(set) var withdrawn = false
    /// What the sheet shows after a failed action.
    private(set) var shownError: String?

    init(content: SheetContent, host: any SheetHost, activationToken: String?) {
        self.content = content
        self.host = host
        self.activationToken = activationToken
    }

    /// Presses a button with the sheet's message (or `email`): what the sheet then does.
    @discardableResult
    func press(_ action: SheetAction, email: EmailData? = nil, from account: String? = nil) -> SheetActionResult {
        if Self.isSend(action) { host.willSend() }
        return shown(host.perform(action, with: email ?? content.email, from: account ?? content.accounts.first?.name))
    }

    static func isSend(_ action: SheetAction) -> Bool { action == .send || action == .releaseHold }

    /// Presses Send (or lets the Undo time end) while the server is `silent`, then Cancel
    /// once the send waits on it, as a person does while "Sending…" shows: whether the
    /// host took the Stop, and what the sheet then does. The send runs on a thread of its
    /// own, as the sheet's worker.
    func pressThenStop(_ action: SheetAction, silent transport: FakeTransport) throws -> (stopped: Bool, result: SheetActionResult) {
        host.willSend()
        let finished = Finished()
        let ended = DispatchSemaphore(value: 0)
        let (host, email, account) = (host, content.email, content.accounts.first?.name)
        Thread {
            finished.value = host.perform(action, with: email, from: account)
            ended.signal()
        }.start()
        // A minute: the fake server only waits; a send that never gets there is a failure.
        guard transport.silentSendBegan.wait(timeout: .now() + 60) == .success else {
            throw FakeDesktopError("the send never reached the silent server")
        }
        let stopped = host.stopSending()
        guard ended.wait(timeout: .now() + 60) == .success, let result = finished.value else {
            throw FakeDesktopError("the stopped send did not end")
        }
        return (stopped, shown(result))
    }

    private func shown(_ result: SheetActionResult) -> SheetActionResult {
        switch result {
        case .finished: close()
        case .failed(let message): shownError = message
        case .held: held = true
        }
        return result
    }

    /// The Undo time is over: the sheet asks for the message to go.
    @discardableResult
    func holdEnds() -> SheetActionResult {
        held = false
        return press(.releaseHold)
    }

    /// Its window is closed while the Send is held: Undo moves to a notification.
    func closeWindowWhileHeld() {
        windowClosedWhileHeld = true
        host.heldWindowClosed()
    }

    func cancel() {
        host.cancelled()
        close()
    }

    private func close() {
        guard isOpen else { return }
        isOpen = false
        host.sheetClosed()
    }

    func withdraw() {
        withdrawn = true
        if isOpen { cancel() }
    }

    func follow(_ other: any SheetWindow) {}

    /// The notification's Undo: as the toast's, the sheet shown again.
    func undoSend() -> Bool {
        guard held || windowClosedWhileHeld, host.undoHold() == nil else { return false }
        held = false
        windowClosedWhileHeld = false
        return true
    }
}

@GLibMainActor
final class FakeChooser: SheetWindow {
    let content: ChooserContent
    let activationToken: String?
    private let answered: (ChooserAnswer) -> Void
    private(set) var answer: ChooserAnswer?

    init(content: ChooserContent, activationToken: String?, answered: @escaping (ChooserAnswer) -> Void) {
        self.content = content
        self.activationToken = activationToken
        self.answered = answered
    }

    var titles: [String] { content.ways.map(\.title) }

    /// Chooses the way titled `title`; `always`: kept for every click.
    func choose(_ title: String, always: Bool = false) {
        guard let index = titles.firstIndex(of: title) else { preconditionFailure("no way \(title) in \(titles)") }
        finish(.way(index, always: always))
    }

    func finish(_ answer: ChooserAnswer) {
        guard self.answer == nil else { return }
        self.answer = answer
        answered(answer)
    }

    func withdraw() { finish(.cancelled) }
    func follow(_ other: any SheetWindow) {}
    func undoSend() -> Bool { false }
}

/// A desktop service on a fake world: its sessions read the world's config file, and its
/// outbox asks are counted rather than sent to a bus.
@GLibMainActor
final class ServiceWorld {
    let world: FakeWorld
    let desktop: FakeDesktop
    let service: DesktopService

    init(config: String?, role: DesktopService.Role = .service, program: Bool = true) throws {
        world = try FakeWorld()
        desktop = FakeDesktop(clock: world.clock)
        if program { world.mailPrograms.program = FakeMailProgram() }
        if let config { try world.writeConfig(text: config) }
        var services = world.services
        let asks = Counter()
        services.ownOutbox = { asks.count += 1 }
        counter = asks
        context = DesktopContext(paths: world.paths, environment: .init(hasDisplay: true), services: services)
        service = DesktopService(context: context, presenter: desktop, role: role)
    }

    let context: DesktopContext
    /// A session as the service makes one for a request.
    func session() -> Session { context.session() }

    private var counter: Counter?
    var outboxAsks: Int { counter?.count ?? 0 }

    var outbox: Outbox { world.paths.storage.outbox }
    var queued: [OutboxEntry] { (try? outbox.list()) ?? [] }
    var sent: [FakeTransport.Sent] { world.transport.sent }
    var handedOff: [EmailData] { world.mailPrograms.program?.taken ?? [] }
    var configText: String { (try? String(contentsOfFile: world.paths.configFile, encoding: .utf8)) ?? "" }

    /// `Compose` as the command line asks it; the answer once it comes.
    func compose(_ url: String?, source: ServiceProtocol.Request.Source = .link, notify: Bool = true) -> AnswerBox {
        var request = ServiceProtocol.Request(url: url, source: source)
        request.notify = notify
        let box = AnswerBox()
        service.compose(request) { box.answer = $0 }
        desktop.settle()
        return box
    }

    static let account = "[account]\nfrom=Jane Doe <jane@example.org>\nhost=127.0.0.1\nport=2525\nsecurity=none\n"
}

/// What a sheet's worker thread answered.
final class Finished: @unchecked Sendable {
    var value: SheetActionResult?
}

struct FakeDesktopError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

final class Counter: @unchecked Sendable {
    var count = 0
}

final class AnswerBox: @unchecked Sendable {
    var answer: ServiceProtocol.Answer?
    var report: RouteReport? { answer?.report.flatMap { RouteReport(json: $0) } }
}

extension FakeWorld {
    /// Writes the config file with `text`, as a person would have it.
    func writeConfig(text: String) throws {
        let url = URL(fileURLWithPath: paths.configFile)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: false, encoding: .utf8)
        chmod(url.path, 0o600)
    }
}

/// The service's tests run as the program's code does, on the main loop's actor, whose
/// thread (`MainLoopThread`) turns GLib's main context: started before the first test hops
/// there.
struct OnTheMainLoop: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        _ = MainLoopThread.shared
        try await function()
    }
}

extension Trait where Self == OnTheMainLoop {
    static var onTheMainLoop: Self { OnTheMainLoop() }
}
