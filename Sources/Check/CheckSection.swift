import MailtoRoute

/// One section of `check`'s report: the facts about one subject, printed as a titled part of
/// the readable report and as members of the JSON object. A new subject is a new file under
/// `Sections/` with its facts, how they read, and its line in `CheckReport.sections`.
public protocol CheckSection: Sendable {
    /// The title in the readable report.
    var title: String { get }
    /// Label and value, in the order shown; empty: the section is left out of the text.
    var rows: [(label: String, value: String)] { get }
    /// Its members of the JSON report (`--json`), in order.
    var jsonMembers: [(String, JSON)] { get }
}

extension CheckReport {
    /// Every section, in the order printed.
    public var sections: [any CheckSection] {
        [verdictSection, mailProgramSection, mimeapps, browsersSection, sandbox, emailBackend, activation, desktopService, accountSection,
         linksSection, settingsSection, outbox, toDoSection]
    }

    /// The whole report as one object (`--json`): each section's members.
    public var json: JSON {
        .object(sections.flatMap(\.jsonMembers))
    }
}

/// `nil` as JSON's null, else the value.
func nullable<Value>(_ value: Value?, _ json: (Value) -> JSON) -> JSON {
    value.map(json) ?? .null
}
