import MailtoRoute

/// What a click would do, in one sentence (and what `mailto-route open` would do when a
/// click does not reach mailto-route), with the plan's name.
struct VerdictSection: CheckSection {
    let verdict: String
    let throughMailtoRoute: String?
    let decision: Plan
    let works: Bool
    let exitStatus: Int32
    /// The ways the chooser would offer, and the one Always remembered.
    let ways: [Way]
    let always: String?
    /// What Always kept for each application of the Email portal, by app id.
    let applications: [(String, String)]

    var title: String { tr("Verdict") }

    var rows: [(label: String, value: String)] {
        var rows = [(tr("a click"), verdict)]
        if let throughMailtoRoute { rows.append(("mailto-route open", throughMailtoRoute)) }
        if let always { rows.append((tr("always"), tr("%@ (mailto-route route reset asks again)", always))) }
        for (application, way) in applications { rows.append((tr("always for"), tr("%@ (Email portal): %@", application, way))) }
        return rows
    }

    var jsonMembers: [(String, JSON)] {
        [("verdict", .object([
            ("sentence", .string(verdict)), ("throughMailtoRoute", .string(throughMailtoRoute)),
            ("decision", .string(decisionName)), ("works", .bool(works)), ("exitStatus", .int(Int(exitStatus))),
            ("ways", .array(ways.map { .object([("id", .string($0.id ?? "setup")), ("name", .string($0.name))]) })),
            ("always", .string(always)),
            ("applications", .object(applications.map { ($0.0, .string($0.1)) })),
        ]))]
    }

    /// The plan's name in the JSON report (kept as `check --json` has always named it).
    private var decisionName: String {
        switch decision {
        case .choose: "choose"
        case .sheet: "sheetThenDirect"
        case .send: "direct"
        case .ask: "askThenDirect"
        case .handOff: "handoff"
        case .copy: "copy"
        case .saveDraft: "draft"
        case .fail: "impossible"
        }
    }
}

extension CheckReport {
    var verdictSection: VerdictSection {
        VerdictSection(verdict: verdict, throughMailtoRoute: throughMailtoRoute, decision: decision, works: works,
                       exitStatus: exitStatus, ways: ways, always: alwaysSetting, applications: portalWays)
    }
}
