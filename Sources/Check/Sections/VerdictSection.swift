import MailtoRoute

/// What a click would do, in one sentence (and what `mailto-route open` would do when a
/// click does not reach mailto-route), with the plan's name.
struct VerdictSection: CheckSection {
    let verdict: String
    let throughMailtoRoute: String?
    let decision: Plan
    let works: Bool
    let exitStatus: Int32

    var title: String { "Verdict" }

    var rows: [(label: String, value: String)] {
        var rows = [("a click", verdict)]
        if let throughMailtoRoute { rows.append(("mailto-route open", throughMailtoRoute)) }
        return rows
    }

    var jsonMembers: [(String, JSON)] {
        [("verdict", .object([
            ("sentence", .string(verdict)), ("throughMailtoRoute", .string(throughMailtoRoute)),
            ("decision", .string(decisionName)), ("works", .bool(works)), ("exitStatus", .int(Int(exitStatus))),
        ]))]
    }

    /// The plan's name in the JSON report (kept as `check --json` has always named it).
    private var decisionName: String {
        switch decision {
        case .sheet: "sheetThenDirect"
        case .send: "direct"
        case .ask: "askThenDirect"
        case .handOff: "handoff"
        case .saveDraft: "draft"
        case .fail: "impossible"
        }
    }
}

extension CheckReport {
    var verdictSection: VerdictSection {
        VerdictSection(verdict: verdict, throughMailtoRoute: throughMailtoRoute, decision: decision, works: works,
                       exitStatus: exitStatus)
    }
}
