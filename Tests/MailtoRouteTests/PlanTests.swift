import MailtoRoute
import Testing

/// The plan, in-process, on facts given as values (docs/style.md 13).
@Suite struct PlanTests {
    static func plan(
        _ source: RouteRequest.Source = .link, forced: RouteRequest.ForcedPath? = nil, policy: LinkPolicy = .ask,
        account: Plan.AccountState = .usable, sheet: Bool = false, password: String? = nil, handler: String? = nil
    ) -> Plan {
        Plan.make(source: source, forcedPath: forced, policy: policy, account: account, sheet: sheet,
                  passwordProblem: { password }) { handler }
    }

    @Test func aLinkUnderAskIsAskedAboutAndFallsBackToTheMailProgram() {
        #expect(Self.plan() == .ask(otherwise: .handOff))
        #expect(Self.plan(handler: "none here") == .ask(otherwise: .saveDraft(reason: "none here")))
    }

    @Test func onlyPolicyDirectSendsALinkWithoutAsking() {
        #expect(Self.plan(policy: .direct) == .send)
        #expect(Self.plan(policy: .handoff) == .handOff)
        #expect(!Self.plan(policy: .handoff).sends)
    }

    @Test func aForcedDirectLinkStillAsks() {
        #expect(Self.plan(forced: .direct) == .ask(otherwise: .handOff))
        #expect(Self.plan(forced: .direct, policy: .direct) == .send)
    }

    @Test func aScriptSendsDirectlyOrLearnsItsAccountIsBroken() {
        #expect(Self.plan(.send) == .send)
        #expect(Self.plan(.send, account: .unusable("bad")) == .fail(.direct, Failure(kind: .configuration, message: "bad")))
        #expect(Self.plan(.send, account: .none) == .handOff)
        #expect(Self.plan(.send, account: .none, handler: "no program")
            == .saveDraft(reason: "no program; and no account to send from: no account is configured"))
    }

    @Test func aForcedHandoffNeverNeedsThePassword() {
        let plan = Self.plan(.send, forced: .handoff)
        #expect(plan == .handOff)
        #expect(!plan.sends)
        #expect(Self.plan(.send, forced: .handoff, handler: "gone")
            == .fail(.handoff, Failure(kind: .permanent, message: "cannot hand off: gone")))
    }

    @Test func aForcedDirectSendWithoutAnAccountFails() {
        #expect(Self.plan(.send, forced: .direct, account: .none)
            == .fail(.direct, Failure(kind: .configuration, message: "cannot send directly: no account is configured")))
        #expect(Self.plan(.send, forced: .draft) == .saveDraft(reason: nil))
    }

    @Test func aLinkWithABrokenAccountGoesToTheMailProgramOrADraftThatSaysWhy() {
        #expect(Self.plan(account: .unusable("no password")) == .handOff)
        #expect(Self.plan(account: .unusable("no password"), handler: "none")
            == .saveDraft(reason: "none; and no account to send from: no password"))
    }

    @Test func theSheetIsALinksQuestionUnderAskAndAPortalRequestsComposer() {
        #expect(Self.plan(sheet: true) == .sheet)
        #expect(Self.plan(.portal, sheet: true) == .sheet)
        #expect(Self.plan(.portal, policy: .direct, sheet: true) == .sheet, "a portal request is never sent without the sheet")
        // Not where the user wants the mail program, has no account, or insists on a path.
        #expect(Self.plan(policy: .handoff, sheet: true) == .handOff)
        #expect(Self.plan(.portal, policy: .handoff, sheet: true) == .handOff)
        #expect(Self.plan(account: .none, sheet: true) == .choose, "no account: the chooser asks once")
        #expect(Self.plan(.portal, account: .none, sheet: true) == .choose, "an application's first request asks once too")
        #expect(Self.plan(account: .unusable("bad file"), sheet: true) == .handOff)
        #expect(Self.plan(forced: .handoff, sheet: true) == .handOff)
        #expect(Self.plan(policy: .direct, sheet: true) == .send, "policy=direct is standing consent: no sheet")
    }

    @Test func withoutASheetAPortalRequestIsHandedOffOrSavedNeverSent() {
        #expect(Self.plan(.portal) == .handOff)
        #expect(Self.plan(.portal, handler: "no program") == .saveDraft(reason: "no program"))
        #expect(!Self.plan(.portal, policy: .direct).sends)
    }

    /// The password is part of the plan, asked only by a plan that sends: a sheet, a
    /// handoff or a draft never runs the password command.
    @Test func thePasswordIsAskedOnlyWhereThePlanSends() {
        var asked = 0
        func plan(_ source: RouteRequest.Source, policy: LinkPolicy, sheet: Bool = false) -> Plan {
            Plan.make(source: source, forcedPath: nil, policy: policy, account: .usable, sheet: sheet,
                      passwordProblem: { asked += 1; return "keyring locked" }) { nil }
        }
        #expect(plan(.link, policy: .ask, sheet: true) == .sheet)
        #expect(plan(.link, policy: .handoff) == .handOff)
        #expect(plan(.portal, policy: .ask) == .handOff)
        #expect(asked == 0)
        #expect(plan(.link, policy: .direct) == .handOff, "a link that cannot send goes to the mail program")
        #expect(plan(.send, policy: .ask) == .fail(.direct, Failure(kind: .configuration, message: "keyring locked")))
        #expect(asked == 2)
        #expect(Self.plan(forced: .direct, password: "keyring locked")
            == .fail(.direct, Failure(kind: .configuration, message: "cannot send directly: keyring locked")))
    }

    /// The first click asks once: the chooser for a link under policy=ask with a sheet, when
    /// there is no account or more than one way; a way kept with Always is taken instead.
    @Test func theChooserAsksOnceAndAlwaysIsTakenWithoutIt() {
        func plan(account: Plan.AccountState = .usable, policy: LinkPolicy = .ask, sheet: Bool = true, always: Plan.Always? = nil,
                  ways: Int, source: RouteRequest.Source = .link, handler: String? = nil) -> Plan {
            Plan.make(source: source, forcedPath: nil, policy: policy, account: account, sheet: sheet, always: always,
                      ways: { ways }) { handler }
        }
        #expect(plan(account: .none, ways: 1) == .choose)
        #expect(plan(ways: 2) == .choose)
        #expect(plan(ways: 1) == .sheet, "one way, the account's: the sheet at once")
        #expect(plan(sheet: false, ways: 2) == .ask(otherwise: .handOff), "no display: no chooser")
        #expect(plan(policy: .handoff, ways: 3) == .handOff, "policy=handoff is the person's own choice")
        #expect(plan(policy: .direct, ways: 3) == .send)
        #expect(plan(account: .unusable("bad"), ways: 3) == .handOff, "a broken account is mended, not chosen around")
        #expect(plan(ways: 3, source: .send) == .send, "a script is never asked")
        // Always: straight there.
        #expect(plan(always: .handOff, ways: 3) == .handOff)
        #expect(plan(account: .none, always: .handOff, ways: 2) == .handOff)
        #expect(plan(always: .handOff, ways: 3, handler: "gone") == .saveDraft(reason: "gone"))
        #expect(plan(always: .sheet, ways: 3) == .sheet)
        #expect(!Plan.choose.sends)
        // The ways are counted only where the chooser may be shown.
        var counted = 0
        _ = Plan.make(source: .link, forcedPath: nil, policy: .handoff, account: .usable, sheet: true,
                      ways: { counted += 1; return 2 }) { nil }
        #expect(counted == 0)
    }

    /// `handler=` (the person's file or the administrator's) is a way chosen, as Always is:
    /// no chooser; with no account the program it names, with an account under policy=ask
    /// the sheet, which is the question.
    @Test func aConfiguredHandlerIsAWayChosenAndTheChooserDoesNotAsk() {
        func plan(_ source: RouteRequest.Source = .link, account: Plan.AccountState, handler: Bool, always: Plan.Always? = nil,
                  sheet: Bool = true, problem: String? = nil) -> Plan {
            Plan.make(source: source, forcedPath: nil, policy: .ask, account: account, sheet: sheet, always: always,
                      handler: handler, ways: { 3 }) { problem }
        }
        #expect(plan(account: .none, handler: true) == .handOff)
        #expect(plan(account: .usable, handler: true) == .sheet)
        #expect(plan(.portal, account: .none, handler: true) == .handOff, "an application's request too")
        #expect(plan(account: .none, handler: true, problem: "cannot start")
            == .saveDraft(reason: "cannot start; and no account to send from: no account is configured"))
        #expect(plan(account: .usable, handler: true, sheet: false) == .ask(otherwise: .handOff), "no display: as before")
        // Always comes first; with neither, the chooser asks.
        #expect(plan(account: .usable, handler: true, always: .handOff) == .handOff)
        #expect(plan(account: .none, handler: false) == .choose)
        #expect(plan(account: .usable, handler: false) == .choose)
    }
}
