import MailtoRoute

/// What a clicked link does under the `[route]` policy, and how its consent is asked.
struct LinksSection: CheckSection {
    let policy: CheckReport.Policy
    let consent: ConsentReach
    let hasTerminal: Bool

    var title: String { "Links" }

    var rows: [(label: String, value: String)] {
        [("policy", policy.error.map { "unreadable (\($0)); links are handed off" } ?? policy.value.rawValue),
         ("consent", consentText)]
    }

    private var consentText: String {
        switch consent {
        case .terminal: "on the terminal"
        case .notification(let server): "with a notification from \(server)"
        case .unreachable(let reason): "cannot be asked for a clicked link (\(reason))"
        }
    }

    var jsonMembers: [(String, JSON)] {
        var members: [(String, JSON)]
        switch consent {
        case .terminal: members = [("click", .string("terminal"))]
        case .notification(let server): members = [("click", .string("notification")), ("server", .string(server))]
        case .unreachable(let reason): members = [("click", .string("unreachable")), ("reason", .string(reason))]
        }
        members.append(("terminal", .bool(hasTerminal)))
        return [("policy", .object([("value", .string(policy.value.rawValue)), ("error", .string(policy.error))])),
                ("consent", .object(members))]
    }
}

extension CheckReport {
    public struct Policy: Sendable {
        public var value: LinkPolicy
        public var error: String?
        /// The step that mends `error`.
        public var fix: String?
    }
}

extension CheckReport {
    var linksSection: LinksSection { LinksSection(policy: policy, consent: consent, hasTerminal: hasTerminal) }
}
