internal import CGIO

/// One desktop notification, as the freedesktop Desktop Notifications specification's
/// `Notify` takes it. `summary` and `body` are plain text: where the server renders markup
/// in bodies (capability `body-markup`), the body is escaped before it is sent.
public struct DesktopNotification: Equatable, Sendable {
    /// One button: `key` comes back in `ActionInvoked`, `label` is what the user sees.
    public struct Action: Equatable, Sendable {
        public var key: String
        public var label: String

        public init(_ key: String, _ label: String) {
            self.key = key
            self.label = label
        }
    }

    /// The `urgency` hint.
    public enum Urgency: UInt8, Sendable {
        case low = 0, normal = 1, critical = 2
    }

    public var appName: String
    /// The `app_icon`: an icon name of the theme.
    public var appIcon: String
    public var summary: String
    public var body: String
    public var actions: [Action]
    public var urgency: Urgency
    /// The `category` hint, such as `email`.
    public var category: String?
    /// The `desktop-entry` hint: the desktop id without `.desktop`, for the icon and name.
    public var desktopEntry: String?
    /// Milliseconds; -1 lets the server choose, 0 never expires.
    public var expireTimeout: Int32

    public init(
        summary: String, body: String = "", actions: [Action] = [], appName: String = Identity.name,
        appIcon: String = Identity.icon, urgency: Urgency = .normal, category: String? = "email",
        desktopEntry: String? = "mailto-route", expireTimeout: Int32 = -1
    ) {
        self.appName = appName
        self.appIcon = appIcon
        self.summary = summary
        self.body = body
        self.actions = actions
        self.urgency = urgency
        self.category = category
        self.desktopEntry = desktopEntry
        self.expireTimeout = expireTimeout
    }
}

/// How a question asked with a notification ended.
public enum NotificationOutcome: Equatable, Sendable {
    /// The user chose the action with this key (`ActionInvoked`).
    case action(String)
    /// The notification was closed without an action: by the user, or by anything but
    /// its expiry (`NotificationClosed` with reason 2, 3 or 4).
    case dismissed
    /// No answer before the deadline, or the server let it expire (reason 1).
    case timedOut
    /// The question could not be asked: no session bus, no notification server, a server
    /// without the `actions` capability, a call that failed or took too long.
    case unavailable(String)
}

/// The notification server on the session bus, as `--check` describes it.
public struct NotificationServer: Equatable, Sendable {
    /// Its name and version, such as `gnome-shell 43.9`.
    public var name: String
    public var capabilities: [String]

    /// Whether it shows buttons (`actions`): consent can be asked with it.
    public var showsButtons: Bool { capabilities.contains("actions") }
}

/// A connection to the desktop's notification server (`org.freedesktop.Notifications` on
/// the session bus). Every D-Bus call waits at most `callTimeout` seconds, so an absent or
/// stuck server costs a bounded time and never a hang.
public final class NotificationClient {
    static let service = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    private let bus: BusConnection
    public let callTimeout: Double
    private var cachedCapabilities: [String]?

    private init(bus: BusConnection, callTimeout: Double) {
        self.bus = bus
        self.callTimeout = callTimeout
    }

    /// Connects to the session bus within `callTimeout` seconds (see
    /// `BusConnection.session`). Throws when there is no session bus or it does not answer.
    public static func connect(callTimeout: Double = 2) throws(DesktopError) -> NotificationClient {
        NotificationClient(bus: try BusConnection.session(within: callTimeout), callTimeout: callTimeout)
    }

    /// Wraps `GetCapabilities` (`as`): `actions`, `body`, `body-markup`, ... Throws when no
    /// notification server is on the bus.
    public func capabilities() throws(DesktopError) -> [String] {
        if let cachedCapabilities { return cachedCapabilities }
        let reply = try call("GetCapabilities", nil, replyType: "(as)")
        let found = reply.child(0).strings
        cachedCapabilities = found
        return found
    }

    /// Wraps `GetServerInformation` (`ssss`: name, vendor, version, spec version) and
    /// `GetCapabilities`.
    public func server() throws(DesktopError) -> NotificationServer {
        let reply = try call("GetServerInformation", nil, replyType: "(ssss)")
        let name = reply.child(0).string ?? "?"
        let version = reply.child(2).string ?? ""
        return NotificationServer(name: version.isEmpty ? name : "\(name) \(version)", capabilities: try capabilities())
    }

    /// Wraps `Notify`: shows `notification` and returns its id. Does not wait for the user.
    public func show(_ notification: DesktopNotification) throws(DesktopError) -> UInt32 {
        let markup = try capabilities().contains("body-markup")
        let body = markup ? (takeString(g_markup_escape_text(notification.body, -1)) ?? "") : notification.body
        var hints: [(String, OpaquePointer)] = [("urgency", VariantBuilder.byte(notification.urgency.rawValue))]
        if let category = notification.category { hints.append(("category", VariantBuilder.string(category))) }
        if let entry = notification.desktopEntry { hints.append(("desktop-entry", VariantBuilder.string(entry))) }
        let parameters = VariantBuilder.tuple([
            VariantBuilder.string(notification.appName),
            VariantBuilder.uint32(0),
            VariantBuilder.string(notification.appIcon),
            VariantBuilder.string(notification.summary),
            VariantBuilder.string(body),
            VariantBuilder.strings(notification.actions.flatMap { [$0.key, $0.label] }),
            VariantBuilder.dictionary(hints),
            VariantBuilder.int32(notification.expireTimeout),
        ])
        let reply = try call("Notify", parameters, replyType: "(u)")
        guard let id = reply.child(0).uint32 else {
            throw DesktopError(.permanent, "\(Self.service).Notify returned no id")
        }
        return id
    }

    /// Wraps `CloseNotification`; a notification that is already gone is no error worth
    /// reporting, so failures are ignored.
    public func close(_ id: UInt32) {
        _ = try? call("CloseNotification", VariantBuilder.tuple([VariantBuilder.uint32(id)]), replyType: "()")
    }

    /// Shows `notification` (which should have actions) and waits at most `timeout`
    /// seconds for `ActionInvoked` or `NotificationClosed` about *its* id, on a signal
    /// subscription made before `Notify` so that no answer can be missed. At the deadline
    /// the notification is closed (`CloseNotification`) and the outcome is `.timedOut`.
    public func ask(_ notification: DesktopNotification, timeout: Double) -> NotificationOutcome {
        let capabilities: [String]
        do {
            capabilities = try self.capabilities()
        } catch {
            return .unavailable("no notification server: \(error.message)")
        }
        guard capabilities.contains("actions") else {
            return .unavailable("the notification server shows no buttons (no 'actions' capability)")
        }
        let answers = SignalAnswers()
        return bus.context.run {
            // Dispatched on `bus.context` (the thread default now).
            let subscription = bus.subscribe(sender: Self.service, interface: Self.service, member: nil, path: Self.path) {
                answers.take($0, $1)
            }
            defer { bus.unsubscribe(subscription) }
            let id: UInt32
            do throws(DesktopError) {
                id = try show(notification)
            } catch {
                return .unavailable("the notification could not be shown: \(error.message)")
            }
            let answered = bus.context.iterate(until: { answers.outcome(for: id) != nil }, seconds: timeout)
            guard answered, let outcome = answers.outcome(for: id) else {
                close(id)
                return .timedOut
            }
            // An answered question does not stay on screen (a resident notification, or a
            // server that keeps answered ones, would leave it there).
            if case .action = outcome { close(id) }
            return outcome
        }
    }

    private func call(_ method: String, _ parameters: OpaquePointer?, replyType: String) throws(DesktopError) -> Variant {
        try bus.call(Self.service, Self.path, Self.service, method, parameters, replyType: replyType, seconds: callTimeout)
    }
}

/// One-shot helpers for the router: a fresh connection each time, since whether a
/// notification server is there is a fact of the moment.
public enum Notifications {
    /// Asks with `notification` (see `NotificationClient.ask`); every failure to ask is
    /// `.unavailable`, never a throw and never a wait longer than the timeouts.
    public static func ask(
        _ notification: DesktopNotification, timeout: Double, callTimeout: Double = 2
    ) -> NotificationOutcome {
        do {
            return try NotificationClient.connect(callTimeout: callTimeout).ask(notification, timeout: timeout)
        } catch {
            return .unavailable(error.message)
        }
    }

    /// The notification server on the session bus now; throws when there is no bus or no
    /// server, within `callTimeout` seconds per call.
    public static func server(callTimeout: Double = 2) throws(DesktopError) -> NotificationServer {
        try NotificationClient.connect(callTimeout: callTimeout).server()
    }

    /// Shows an informational `notification` (see `NotificationClient.show`) and returns
    /// its id; throws when it could not be shown.
    @discardableResult
    public static func show(_ notification: DesktopNotification, callTimeout: Double = 2) throws(DesktopError) -> UInt32 {
        try NotificationClient.connect(callTimeout: callTimeout).show(notification)
    }
}

// MARK: - Signals

/// The answers `ask`'s subscription has seen, by notification id: the first one counts.
private final class SignalAnswers {
    private var outcomes: [UInt32: NotificationOutcome] = [:]

    func record(_ id: UInt32, _ outcome: NotificationOutcome) {
        if outcomes[id] == nil { outcomes[id] = outcome }
    }

    func outcome(for id: UInt32) -> NotificationOutcome? { outcomes[id] }

    /// A signal of the notification server, as `ask`'s subscription gets it.
    func take(_ member: String, _ values: Variant) {
        switch member {
        case "ActionInvoked" where values.isOfType("(us)"):
            if let id = values.child(0).uint32, let key = values.child(1).string {
                record(id, .action(key))
            }
        case "NotificationClosed" where values.isOfType("(uu)"):
            if let id = values.child(0).uint32, let reason = values.child(1).uint32 {
                // The specification's reasons: 1 expired, 2 dismissed by the user, 3 closed by
                // CloseNotification, 4 undefined.
                record(id, reason == 1 ? .timedOut : .dismissed)
            }
        default:
            break
        }
    }
}

