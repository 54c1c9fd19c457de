import MIMEMessage

extension Session {
    /// `drafts send ID`: the user asked, so it is sent (trusted, like `send`) from the
    /// account, through the submit step every send takes. Sent: the draft is removed. The
    /// server cannot take it now: it moves to the outbox (queued), and the draft is removed
    /// once the outbox has it. Anything else: it stays a draft. Throws before any sending:
    /// an unknown draft (input), no account (configuration).
    public func sendDraft(_ id: String, from selector: String? = nil) throws -> (report: RouteReport, draftRemoved: Bool) {
        let drafts = storage.drafts
        let bytes = try drafts.read(id)
        let account: Account
        do {
            account = try accountSetup(selector).map { try $0.get().account.get() } ?? defaultAccount()
        } catch {
            throw ConfigurationError("no account to send from (\(Failure(error, otherwise: .configuration).message)); the draft stays in \(drafts.path(id))")
        }
        var report = RouteReport(path: .direct, result: .failed)
        report.server = account.server.address
        report.account = account.name
        report.draft = drafts.path(id)
        var removed = false
        do {
            let draft = try DraftSubmission(draft: bytes, from: account.from)
            report.messageId = draft.messageId
            report.warnings += draft.warnings
            let submission = Submission(stored: .bytes(draft.bytes), envelopeFrom: draft.envelopeFrom,
                                        recipients: draft.recipients, messageId: draft.messageId, subject: nil, account: account)
            if submit(submission, into: &report) == .delivered {
                do {
                    try drafts.drop(id)
                    removed = true
                } catch {
                    report.warnings.append("the draft could not be removed, so sending it again would send it twice: \(error)")
                }
            }
        } catch {
            report.error = Failure(error, otherwise: .permanent)
        }
        log(report, source: .drafts)
        return (report, removed)
    }
}
