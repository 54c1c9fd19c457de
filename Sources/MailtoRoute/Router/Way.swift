import DesktopIntegration

/// One way a clicked link can go, as the chooser offers it (the first click asks once): send
/// from an account (in the compose sheet), open in a mail program, open a webmail service's
/// compose page, or set up sending when there is no account. Only ways that can start now
/// are offered (`Session.ways`).
public struct Way: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Write it in the compose sheet and send from this account (its name,
        /// `Session.accounts`).
        case account(String)
        /// Hand it to this mail program (its desktop id).
        case program(String)
        /// Open this webmail service's compose page (what follows `webmail:` in `handler=`).
        case webmail(String)
        /// Copy Address: the link's addresses on the clipboard, nothing sent (`always=copy`).
        case copyAddress
        /// There is no account: set one up (the sheet's setup page).
        case setUp
    }

    public var kind: Kind
    /// The account's `Name <address>`, the program's name, the service's name.
    public var name: String
    /// Where it comes from, as a person reads it: the account's file or `GNOME Online
    /// Accounts (Google)`, the program's desktop id, the browser that opens the service.
    public var origin: String
    /// A mail program that runs in a terminal (`Terminal=true`).
    public var inTerminal: Bool
    /// The mail program the desktop names for `mailto:` (GIO's default).
    public var isSystemDefault: Bool

    public init(kind: Kind, name: String, origin: String, inTerminal: Bool = false, isSystemDefault: Bool = false) {
        self.kind = kind
        self.name = name
        self.origin = origin
        self.inTerminal = inTerminal
        self.isSystemDefault = isSystemDefault
    }

    /// The way as the desktop service's `Compose` carries it (the caller's chooser).
    public var offered: ServiceProtocol.OfferedWay {
        ServiceProtocol.OfferedWay(id: id ?? "", name: name, origin: origin, inTerminal: inTerminal, isSystemDefault: isSystemDefault)
    }

    /// A way the caller's chooser offers (`offered`), read back.
    public init(offered: ServiceProtocol.OfferedWay) {
        self.init(kind: offered.id.isEmpty ? .setUp : Way.kind(ofID: offered.id), name: offered.name, origin: offered.origin,
                  inTerminal: offered.inTerminal, isSystemDefault: offered.isSystemDefault)
    }

    /// The way most people mean, which the chooser has chosen when it opens: an account
    /// when there is one; else the desktop's default mail program, if it is a window of its
    /// own; else the first such program; else the first webmail service; else the first way.
    /// Never a program that runs in a terminal because GIO merely lists it, nor "Set up
    /// sending…" while anything else can go, nor Copy Address while anything else is
    /// offered (it sends nothing). `nil` for no ways.
    public static func preferred(in ways: [Way]) -> Int? {
        func first(_ test: (Way) -> Bool) -> Int? { ways.firstIndex(where: test) }
        func isProgram(_ way: Way) -> Bool { if case .program = way.kind { !way.inTerminal } else { false } }
        return first { if case .account = $0.kind { true } else { false } }
            ?? first { isProgram($0) && $0.isSystemDefault }
            ?? first(isProgram)
            ?? first { if case .webmail = $0.kind { true } else { false } }
            ?? first { $0.kind != .setUp && $0.kind != .copyAddress }
            ?? first { $0.kind != .copyAddress }
            ?? (ways.isEmpty ? nil : 0)
    }

    /// The way as `always=` of `[route]` names it: `account:NAME`, a desktop id
    /// (`thunderbird.desktop`), `webmail:SERVICE` (`webmail:gmail:jane@gmail.com` for a
    /// service in one account's), `copy`; `nil` for setting up, which is not
    /// remembered (once set up, there is an account).
    public var id: String? {
        switch kind {
        case .account(let name): Self.accountPrefix + name
        case .program(let id): id
        case .webmail(let service): Self.webmailPrefix + service
        case .copyAddress: Self.copyID
        case .setUp: nil
        }
    }

    /// What `always=` holds, read back: the kind of way it names.
    public static func kind(ofID id: String) -> Kind {
        if id.hasPrefix(accountPrefix) { return .account(String(id.dropFirst(accountPrefix.count))) }
        if id.hasPrefix(webmailPrefix) { return .webmail(String(id.dropFirst(webmailPrefix.count))) }
        // A desktop id ends in .desktop: `copy` is never one.
        if id == copyID { return .copyAddress }
        return .program(id)
    }

    /// The `handler=` a handoff to this way takes (a desktop id or `webmail:SERVICE`);
    /// `nil` for an account or setting up.
    public var handler: String? {
        switch kind {
        case .program(let id): id
        case .webmail(let service): Self.webmailPrefix + service
        case .account, .copyAddress, .setUp: nil
        }
    }

    /// This way kept with Always, as the plan sees it: an account is the sheet, a program or
    /// service a handoff; setting up is never kept.
    public var kept: Plan.Always? {
        switch kind {
        case .account: .sheet
        case .program, .webmail: .handOff
        case .copyAddress: .copy
        case .setUp: nil
        }
    }

    /// How many different ways `ways` are, as the plan counts them: every account is the
    /// one compose sheet (its From chooses among them), each program or service one more.
    /// Copy Address sends nothing: it is offered beside the others, never a reason to ask.
    public static func count(_ ways: [Way]) -> Int {
        let accounts = ways.contains { if case .account = $0.kind { true } else { false } } ? 1 : 0
        return accounts + ways.filter {
            switch $0.kind {
            case .account, .copyAddress: false
            case .program, .webmail, .setUp: true
            }
        }.count
    }

    static let accountPrefix = "account:"
    static let webmailPrefix = "webmail:"
    static let copyID = "copy"
}

extension Session {
    /// Every way a clicked link can go from here, each one that can start now, in the
    /// chooser's order: the accounts that read (the sheet, its From the one chosen), the
    /// mail programs (the desktop's default first; a `Terminal=true` one only when there is
    /// a terminal emulator to run it in; never mailto-route itself), the webmail services
    /// (with a web browser to open them in; a service with accounts once per account:
    /// `withWebmailAccounts`), "set up sending" when there is no account, and
    /// last Copy Address (the desktop service holds the clipboard: docs/desktop-service.md).
    public func ways() -> [Way] {
        var ways = accounts.compactMap { setup -> Way? in
            guard case .success(let account) = setup.account else { return nil }
            return Way(kind: .account(setup.name), name: account.from.readable, origin: setup.originText)
        }
        ways += withWebmailAccounts(services.mailPrograms.ways(configured: routeSettings.handler, paths: paths))
        if accounts.isEmpty { ways.append(Way(kind: .setUp, name: tr("Set up sending"), origin: "")) }
        ways.append(Way(kind: .copyAddress, name: tr("Copy Address"), origin: ""))
        return ways
    }

    /// The way `always=` of `[route]` names, when it can be taken now: an account that is
    /// still set up, a mail program still installed, a webmail service with a browser to
    /// open it in. `nil` otherwise: the chooser asks again (what is gone cannot be taken).
    public var rememberedWay: Way? {
        if let rememberedWayMemo { return rememberedWayMemo.way }
        let found = routeSettings.always.flatMap(takeableWay)
        rememberedWayMemo = WayMemo(way: found)
        return found
    }

    /// The way kept for `request`: for an application of the Email portal, the one kept for
    /// its app id (`[portal APPID]`); for a link, `rememberedWay`.
    public func rememberedWay(for request: RouteRequest) -> Way? {
        guard request.source == .portal else { return request.source == .link ? rememberedWay : nil }
        return request.requestingApplication.flatMap { configuration.portalWays[$0] }.flatMap(takeableWay)
    }

    /// The way `id` (`Way.id`) names, when it can be taken now.
    func takeableWay(_ id: String) -> Way? {
        let kind = Way.kind(ofID: id)
        if case .account(let name) = kind {
            return accounts.contains(where: { $0.name == name }) ? Way(kind: kind, name: name, origin: "") : nil
        }
        if kind == .copyAddress { return Way(kind: kind, name: tr("Copy Address"), origin: "") }
        // The configured handler= too: a webmail template is a way only where it is named.
        // A webmail service in the account it opens is among them (withWebmailAccounts).
        let offered = services.mailPrograms.ways(configured: Way(kind: kind, name: "", origin: "").handler, paths: paths)
        return withWebmailAccounts(offered).first { $0.kind == kind }
    }

    /// The way kept for `request`, as the plan sees it.
    func always(for request: RouteRequest) -> Plan.Always? {
        rememberedWay(for: request)?.kept
    }
}

/// `Session.rememberedWay`, looked up once per run (GIO is asked for the programs).
struct WayMemo {
    var way: Way?
}
