import MailtoRoute
import Outbox

extension CheckReport {
    public struct OutboxFacts: Sendable {
        public var pending: Int = 0
        public var oldest: Timestamp?
        public var lastError: String?
        public var failed: Int = 0
        public var damaged: Int = 0
        public var drafts: Int = 0
        /// The outbox or drafts could not be read.
        public var error: String?
    }
}

extension CheckReport.OutboxFacts: CheckSection {
    public var title: String { "Outbox" }

    public var rows: [(label: String, value: String)] {
        var rows = [("pending", String(pending) + (oldest.map { ", \(pending == 1 ? "queued" : "oldest queued") \($0.iso8601)" } ?? ""))]
        if let lastError { rows.append(("last error", lastError)) }
        rows.append(("failed", String(failed)))
        if damaged > 0 { rows.append(("damaged", String(damaged))) }
        rows.append(("drafts", String(drafts)))
        if let error { rows.append(("error", error)) }
        return rows
    }

    public var jsonMembers: [(String, JSON)] {
        [("outbox", .object([
            ("pending", .int(pending)), ("oldest", .string(oldest?.iso8601)), ("lastError", .string(lastError)),
            ("failed", .int(failed)), ("damaged", .int(damaged)), ("error", .string(error)),
        ])), ("drafts", .int(drafts))]
    }
}

extension Check {
    static func outboxFacts(_ storage: StorageLocations) -> CheckReport.OutboxFacts {
        var facts = CheckReport.OutboxFacts()
        do {
            let pending = try storage.outbox.list()
            facts.pending = pending.count
            facts.oldest = pending.map(\.created).min()
            let tried = pending.filter { $0.lastError != nil }
            if let last = tried.max(by: { ($0.lastAttempt ?? $0.created) < ($1.lastAttempt ?? $1.created) }),
               let error = last.lastError {
                facts.lastError = "\(error.kind.rawValue): \(error.message)"
            }
            facts.failed = try storage.outbox.failed().count
            facts.damaged = try storage.outbox.damaged().count
            facts.drafts = try storage.drafts.list().count
        } catch {
            facts.error = Failure(error, otherwise: .permanent).message
        }
        return facts
    }
}
