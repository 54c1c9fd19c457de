/// What a message will be done with, decided before anything is done: one function of the
/// run's facts (where the message came from, the path the caller insists on, the policy,
/// the account and its password, whether a compose sheet can be shown, whether there is a
/// mail program). A click, the desktop service, the Email portal backend and `check`
/// decide by it alike, and carry out what it says.
public enum Plan: Equatable, Sendable {
    /// Open the compose sheet: for a link under `policy=ask` it is the question (rule 1),
    /// for an application through the Email portal its composer. What the user does
    /// there is the route.
    case sheet
    /// A link under `policy=ask` with no account, or with several ways to go, and no way
    /// remembered or named (`always=`, `handler=`): the chooser asks the person which way
    /// (`Session.ways`), once ("Just this once") or for good ("Always", written as
    /// `always=` in `[route]`). What they choose is the route: the sheet for an account, a
    /// handoff to the program or service.
    case choose
    /// Send over the account now.
    case send
    /// A link under `policy=ask`: ask the user, then send, hand off, save or cancel; when
    /// consent cannot be asked or goes unanswered, `otherwise` (rule 1: never send).
    case ask(otherwise: Fallback)
    /// Give it to the mail program.
    case handOff
    /// Copy Address: put the recipients on the clipboard (`EmailData.copiedAddresses`),
    /// send nothing; chosen in the chooser, kept with Always, or asked for (`copy`).
    case copy
    /// Save it as a draft; `reason`, when it is not what the caller asked for.
    case saveDraft(reason: String?)
    /// What the caller insists on cannot be done: the report fails (and the message is kept
    /// as a draft).
    case fail(RouteReport.Path, Failure)

    /// What a link that could not be asked about gets instead of being sent.
    public enum Fallback: Equatable, Sendable {
        case handOff
        case saveDraft(reason: String)
    }

    /// Where the account stands, as far as the plan needs to know.
    public enum AccountState: Equatable, Sendable {
        /// None is set up.
        case none
        /// One is set up and cannot send: its mistake (the file, or the password).
        case unusable(String)
        /// One is set up and reads; its password is obtained once a plan sends.
        case usable
    }

    /// The way the chooser's **Always** remembered for links, as far as the plan needs to know.
    public enum Always: Equatable, Sendable {
        /// Send from an account: the sheet, as `policy=ask` has it, without the chooser.
        case sheet
        /// A mail program or webmail service: a handoff, as `policy=handoff` has it.
        case handOff
        /// Copy Address (`always=copy`): every link's addresses go to the clipboard.
        case copy
    }

    /// Whether this plan sends, and so needs the account's password first.
    public var sends: Bool {
        switch self {
        case .send, .ask: true
        case .sheet, .choose, .handOff, .copy, .saveDraft, .fail: false
        }
    }

    /// The plan for a message from `source`. `account` is the account as the configuration
    /// has it; `passwordProblem` is asked only when the plan would send (obtaining a
    /// password may run a command or a keyring prompt): `nil` when it can be had now, else
    /// why not. `sheet`: a compose sheet can be shown for this request here (a display and
    /// the sheet program, or the service's window). `handlerProblem` is asked only when a
    /// path needs the mail program: `nil` for "there is one", else why there is none.
    /// `always`: the way the chooser remembered for links; `handler`: `handler=` names the
    /// mail program (the person's file or the administrator's); `ways`: how many ways a link
    /// can go now (`Session.ways`), counted only when the chooser may be shown.
    public static func make(
        source: RouteRequest.Source, forcedPath: RouteRequest.ForcedPath?, policy: LinkPolicy,
        account: AccountState, sheet: Bool = false, always: Always? = nil, handler: Bool = false, ways: () -> Int = { 1 },
        passwordProblem: () -> String? = { nil }, handlerProblem: () -> String?
    ) -> Plan {
        // A link under policy=ask, and an application through the Email portal unless the
        // person wants every message in the mail program.
        let asks = source == .link && policy == .ask || source == .portal && policy != .handoff
        if asks, forcedPath == nil {
            switch always {
            case .handOff?:
                // The program the person chose for good, as policy=handoff would: a link
                // never sends, and where the program cannot start, a draft.
                return decide(source: source, forcedPath: nil, policy: .handoff, account: account, handlerProblem)
            case .copy?:
                return .copy
            case .sheet?:
                break
            case nil:
                // The first click asks once: with no account (the ways there are, and
                // setting one up), or several ways; an account with a mistake is the
                // person's to mend, and its link goes on as before. A handler= is a way
                // chosen, as Always is: its program without an account, the sheet with one.
                if sheet, !handler, account == .none || account == .usable && ways() > 1 { return .choose }
            }
        }
        if sheet, forcedPath == nil, account == .usable {
            // The sheet is a link's question under policy=ask, and a portal request's
            // composer unless the user wants every message in the mail program.
            if source == .link && policy == .ask || source == .portal && policy != .handoff { return .sheet }
        }
        let plan = decide(source: source, forcedPath: forcedPath, policy: policy, account: account, handlerProblem)
        // The password, for an account the configuration has right: asked only by a plan
        // that sends, and then once.
        guard plan.sends, account == .usable, let problem = passwordProblem() else { return plan }
        return decide(source: source, forcedPath: forcedPath, policy: policy, account: .unusable(problem), handlerProblem)
    }

    private static func decide(
        source: RouteRequest.Source, forcedPath: RouteRequest.ForcedPath?, policy: LinkPolicy,
        account: AccountState, _ handlerProblem: () -> String?
    ) -> Plan {
        switch forcedPath {
        case .direct:
            if case .unusable(let problem) = account {
                return .fail(.direct, Failure(kind: .configuration, message: tr("cannot send directly: %@", problem)))
            }
            if account == .none {
                return .fail(.direct, Failure(kind: .configuration, message: tr("cannot send directly: no account is configured")))
            }
            // A forced direct send of a link is still a link: consent first, unless the
            // user's own policy is standing consent (rule 1).
            return source == .link && policy != .direct ? .ask(otherwise: fallback(handlerProblem)) : .send
        case .handoff:
            if let problem = handlerProblem() {
                return .fail(.handoff, Failure(kind: .permanent, message: tr("cannot hand off: %@", problem)))
            }
            return .handOff
        case .draft:
            return .saveDraft(reason: nil)
        case .copy:
            return .copy
        case nil:
            break
        }
        if source == .portal {
            // An application's message is sent only from the sheet the user confirms: with
            // none, its mail program, else a draft.
            return handOffOrSave(account, handlerProblem)
        }
        if source != .link {
            // A script that asked to send learns that its account is broken, rather than
            // finding its message handed to a mail program; the message is kept.
            if case .unusable(let problem) = account { return .fail(.direct, Failure(kind: .configuration, message: problem)) }
            if account == .usable { return .send }
            return handOffOrSave(account, handlerProblem)
        }
        guard account == .usable, policy != .handoff else { return handOffOrSave(account, handlerProblem) }
        return policy == .direct ? .send : .ask(otherwise: fallback(handlerProblem))
    }

    /// The mail program when there is one, else a draft, whose reason says why neither it
    /// nor the account could take the message.
    private static func handOffOrSave(_ account: AccountState, _ handlerProblem: () -> String?) -> Plan {
        guard let problem = handlerProblem() else { return .handOff }
        switch account {
        case .none: return .saveDraft(reason: tr("%@; and no account to send from: no account is configured", problem))
        case .unusable(let accountProblem): return .saveDraft(reason: tr("%@; and no account to send from: %@", problem, accountProblem))
        case .usable: return .saveDraft(reason: problem)
        }
    }

    private static func fallback(_ handlerProblem: () -> String?) -> Fallback {
        handlerProblem().map { .saveDraft(reason: $0) } ?? .handOff
    }
}
