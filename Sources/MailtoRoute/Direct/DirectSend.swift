import MIMEMessage
import SMTPTransport

/// The direct path: build the message for the account and submit it, and say what came of
/// it. Nothing here is cached: the account is read by the caller for this send.
public enum DirectSend {

    /// Sends `email` from `account`. Never throws: every failure is in the report, with its
    /// kind (`report.error`), so that the caller chooses the exit status in one place.
    /// `progress` is called with bytes sent and the total, from the sending thread.
    public static func send(
        _ email: EmailData, account: Account, progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)? = nil,
        messageSize: ((Int) -> Void)? = nil
    ) -> RouteReport {
        var report = RouteReport(path: .direct, result: .failed)
        report.server = account.server.address
        report.warnings = email.dropped.map { "dropped '\($0.name)': \($0.reason)" }
        do {
            let message = try OutgoingMessage(from: account.from, email: email)
            report.messageId = message.messageID
            messageSize?(message.size)
            let server = try account.serverWithPassword()
            let receipt = try SMTPSubmission.send(message, via: server, progress: progress)
            report.result = .sent
            report.reply = receipt.reply
            report.accepted = receipt.accepted
            report.refused = receipt.refused.map { RouteReport.Refusal(address: $0.address, reply: $0.reply) }
        } catch let error as SMTPError {
            report.reply = error.reply
            report.error = RouteReport.Failure(kind: error.kind, message: error.description)
        } catch let error as any ClassifiedError {
            report.error = RouteReport.Failure(kind: error.kind, message: error.description)
        } catch {
            report.error = RouteReport.Failure(kind: .permanent, message: "\(error)")
        }
        return report
    }
}

/// A whole file (a body file, standard input as `/dev/stdin`), read with open/read;
/// `nil` with errno set.
public func readWholeFile(_ path: String) -> [UInt8]? {
    readBytes(path)
}
