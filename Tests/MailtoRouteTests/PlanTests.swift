import MailtoRoute
import Testing

/// The plan, in-process, on facts given as values (docs/style.md 13).
@Suite struct PlanTests {
    static func plan(
        _ source: RouteRequest.Source = .link, forced: RouteRequest.ForcedPath? = nil, policy: LinkPolicy = .ask,
        account: Plan.AccountState = .usable, handler: String? = nil
    ) -> Plan {
        Plan.make(source: source, forcedPath: forced, policy: policy, account: account) { handler }
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
}
