import MailtoRoute
import Outbox

extension CheckReport {
    public struct OutboxFacts: Sendable {
        public var pending: Int = 0
        /// Of `pending`, those held by the user until their time (Undo send, Send Later),
        /// and the first of those times.
        public var held: Int = 0
        public var nextHeld: Timestamp?
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
    public var title: String { tr("Outbox") }

    public var rows: [(label: String, value: String)] {
        var rows = [(tr("pending"), oldest.map { trn("%@, queued %@", "%@, oldest queued %@", pending, pending, $0.iso8601) } ?? String(pending))]
        if held > 0 {
            rows.append((tr("held"), nextHeld.map { trn("%@, sent at %@", "%@, the first sent at %@", held, held, $0.iso8601) } ?? String(held)))
        }
        if let lastError { rows.append((tr("last error"), lastError)) }
        rows.append((tr("failed"), String(failed)))
        if damaged > 0 { rows.append((tr("damaged"), String(damaged))) }
        rows.append((tr("drafts"), String(drafts)))
        if let error { rows.append((tr("error"), error)) }
        return rows
    }

    public var jsonMembers: [(String, JSON)] {
        [("outbox", .object([
            ("pending", .int(pending)), ("oldest", .string(oldest?.iso8601)), ("held", .int(held)),
            ("nextHeld", .string(nextHeld?.iso8601)), ("lastError", .string(lastError)),
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
            let now = Timestamp.now()
            let held = pending.filter { $0.isHeld(at: now) }
            facts.held = held.count
            facts.nextHeld = held.map(\.nextAttempt).min()
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
