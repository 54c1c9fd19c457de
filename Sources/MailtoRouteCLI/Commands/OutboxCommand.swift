import MailtoRoute

/// `mailto-route outbox list | show ID | flush | watch | retry ID | drop ID [--json]`: what
/// is waiting to be sent, sending it, and the user's say over it.
enum OutboxCommand: Command {
    static let name = "outbox"
    static let summary = trNoop("List, send, retry or drop messages waiting to be retried.")
    static let usage = "outbox list | show ID | flush | watch | retry ID | drop ID [--json]"
    static let options: [OptionSpec] = [.flag("--json", trNoop("print the result as JSON"))]
    static let arguments: [(name: String, help: String)] = [
        ("list", trNoop("the queued messages, then the failed ones (the default)")),
        ("show ID", trNoop("one message: attempts, last error, next attempt, recipients, file")),
        ("flush", trNoop("send the queued messages now, over one connection")),
        ("watch", trNoop("stay running and send when due and when the network is back")),
        ("retry ID", trNoop("make a message due now (a failed one queued again), then send it")),
        ("drop ID", trNoop("delete a message without sending it")),
    ]
    static let maxPositionals = 2

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        let output = context.output
        let json = arguments.has("--json")
        let action = arguments.positionals.first ?? "list"
        // The person asks for these by hand: an account whose sign-in was refused is tried
        // again with what GNOME Online Accounts has now (`AccountMemory`).
        let session = context.session(Session.Options(personAsked: action == "retry" || action == "flush"))
        let outbox = session.storage.outbox
        let id = arguments.positionals.dropFirst().first
        let needsID = ["show", "retry", "drop"].contains(action)
        if needsID, id == nil {
            throw UsageError(tr("outbox %@ needs an entry ID (see 'mailto-route outbox list')", action), usage: fullUsage)
        }
        if !needsID, id != nil {
            throw UsageError(tr("unexpected argument '%@'", id ?? ""), usage: fullUsage)
        }
        switch (action, id) {
        case ("list", _): return try list(outbox, json: json, output: output)
        case ("show", let id?): return try show(outbox, id, json: json, output: output)
        case ("retry", let id?):
            return try retry(id, session: session, json: json, output: output)
        case ("drop", let id?):
            let (entry, _) = try outbox.entry(id)
            try outbox.drop(id)
            if json {
                output.print(JSON.object([("dropped", .string(id))]).serialized)
            } else {
                output.print(tr("%@: dropped, not sent (%@).", id, describe(entry).visible))
            }
            return .success
        case ("flush", _): return try flush(session, json: json, output: output, allQueued: true)
        case ("watch", _): return try OutboxWatchCommand.run(json: json, context: context)
        default:
            throw UsageError(tr("unknown outbox action '%@'", action), usage: fullUsage)
        }
    }

    // MARK: - retry

    /// Makes the entry due now, then sends it at once: the user asked for it. Without an
    /// account that can send, it stays due and the account's mistake is the error (78).
    private static func retry(_ id: String, session: Session, json: Bool, output: Output) throws -> ExitStatus {
        let outbox = session.storage.outbox
        let wasFailed = try outbox.entry(id).state == .failed
        let entry = try outbox.retry(id)
        do {
            return try flush(session, json: json, output: output, selecting: { $0.id == id })
        } catch {
            // The flush throws before sending when no account can send (its mistake is
            // the error); what `retry` did holds all the same.
            guard json else {
                output.print(wasFailed ? tr("%@: back in the queue, due now; it is sent at the next flush once the account works.", id)
                                       : tr("%@: due now; it is sent at the next flush once the account works.", id))
                throw error
            }
            // One document, as a script reads it: the entry as it now is, with the error.
            let (errorJSON, status) = jsonError(error)
            var document = entry.json(state: "queued")
            if case .object(let members) = document { document = .object(members + [("error", errorJSON)]) }
            output.print(document.serialized)
            return status
        }
    }

    // MARK: - list, show

    private static func list(_ outbox: Outbox, json: Bool, output: Output, now: Timestamp = .now()) throws -> ExitStatus {
        let all = try outbox.list()
        // Held by the user until their time (Undo send, Send Later): listed apart, as sent then.
        let held = all.filter { $0.isHeld(at: now) }
        let queued = all.filter { !$0.isHeld(at: now) }
        let failed = try outbox.failed()
        let damaged = try outbox.damaged()
        if json {
            // Held messages are queued ones with `hold` and their time as `nextAttempt`.
            var members: [(String, JSON)] = [
                ("queued", .array(all.map { $0.json(state: "queued") })),
                ("failed", .array(failed.map { $0.json(state: "failed") })),
            ]
            if !damaged.isEmpty {
                members.append(("damaged", .array(damaged.map { .object([("id", .string($0.id)), ("error", .string($0.error.description))]) })))
            }
            output.print(JSON.object(members).serialized)
            return .success
        }
        for (id, error) in damaged {
            output.error("mailto-route: " + tr("outbox entry %@ is damaged and is not sent: %@", id, error.description))
        }
        if all.isEmpty && failed.isEmpty {
            output.print(tr("The outbox is empty."))
            return .success
        }
        if !held.isEmpty {
            output.print(tr("Held until their time (%@); 'outbox retry ID' sends one now, 'outbox drop ID' deletes it:", held.count))
            var table = Table(header: [tr("ID"), tr("SEND AT"), tr("HELD FOR"), tr("TO"), tr("SUBJECT")])
            for entry in held {
                table.add([entry.id, entry.nextAttempt.localText, entry.hold == .undo ? tr("undo send") : tr("send later"),
                           entry.recipients.joined(separator: ", ").cut(to: 30), (entry.subject ?? "").cut(to: 30)])
            }
            output.print(table.lines.joined(separator: "\n"))
            if !queued.isEmpty || !failed.isEmpty { output.print("") }
        }
        if !queued.isEmpty {
            output.print(tr("Queued (%@):", queued.count))
            output.print(table(queued, timeColumn: tr("NEXT ATTEMPT"), time: \.nextAttempt))
        }
        if !failed.isEmpty {
            if !queued.isEmpty { output.print("") }
            output.print(tr("Failed, not retried any more (%@); 'outbox retry ID' queues one again:", failed.count))
            output.print(table(failed, timeColumn: tr("QUEUED"), time: \.created))
        }
        return .success
    }

    private static func table(_ entries: [OutboxEntry], timeColumn: String, time: KeyPath<OutboxEntry, Timestamp>) -> String {
        var table = Table(header: [tr("ID"), tr("ATTEMPTS"), timeColumn, tr("TO"), tr("SUBJECT"), tr("LAST ERROR")])
        for entry in entries {
            table.add([
                entry.id, String(entry.attempts), entry[keyPath: time].localShortText,
                entry.recipients.joined(separator: ", ").cut(to: 30), (entry.subject ?? "").cut(to: 30),
                entry.lastError.map { "\($0.kind.rawValue): \($0.message)" }?.cut(to: 40) ?? "",
            ])
        }
        return table.lines.joined(separator: "\n")
    }

    private static func show(_ outbox: Outbox, _ id: String, json: Bool, output: Output) throws -> ExitStatus {
        let (entry, state) = try outbox.entry(id)
        if json {
            output.print(entry.json(state: state.rawValue).serialized)
            return .success
        }
        var table = Table(header: [tr("ID:"), entry.id])
        table.add([tr("State:"), state == .queued ? tr("queued") : tr("failed (not retried any more)")])
        table.add([tr("Queued:"), entry.created.localText])
        table.add([tr("Attempts:"), String(entry.attempts)])
        if let last = entry.lastAttempt { table.add([tr("Last attempt:"), last.localText]) }
        if state == .queued, entry.isHeld(at: .now()) {
            let why = entry.hold == .undo ? tr("undo send") : tr("send later")
            table.add([tr("Held:"), tr("until %@ (%@); '%@' sends it now", entry.nextAttempt.localText, why, "outbox retry \(entry.id)")])
            table.add([tr("Gives up:"), entry.expires.localText])
        } else if state == .queued {
            table.add([tr("Next attempt:"), entry.nextAttempt.localText])
            table.add([tr("Gives up:"), entry.expires.localText])
        }
        if let error = entry.lastError {
            table.add([tr("Last error:"), "\(error.kind.rawValue): \(error.message)"])
            // The library's own words, for whoever looks into it: English in every locale.
            if let detail = error.detail { table.add([tr("Details:"), detail]) }
        }
        table.add([tr("From:"), entry.envelopeFrom])
        table.add([tr("To:"), entry.recipients.joined(separator: ", ")])
        if let subject = entry.subject { table.add([tr("Subject:"), subject]) }
        if let messageId = entry.messageId { table.add(["Message-ID:", messageId]) }
        if let server = entry.server { table.add([tr("Server:"), server]) }
        table.add([tr("Size:"), trn("%@ byte", "%@ bytes", entry.size, entry.size)])
        table.add([tr("Message:"), outbox.messagePath(id, state: state)])
        output.print(table.lines.joined(separator: "\n"))
        return .success
    }

    // MARK: - flush

    /// Sends what `selecting` picks (by default what is due; every queued message with
    /// `allQueued`) and reports per message. Exit 0 when everything tried was sent, 1 when
    /// something moved to failed/, 75 when something is still queued, 78 (thrown) when no
    /// account can send; the outbox error's status when the outbox could not record an
    /// attempt (the flush stopped there).
    static func flush(
        _ session: Session, json: Bool, output: Output, allQueued: Bool = false,
        selecting: ((OutboxEntry) -> Bool)? = nil
    ) throws -> ExitStatus {
        // The command ends after the flush: the sent messages' files are deleted in the
        // background, not waited for.
        guard let result = try session.flushOutbox(allQueued: allQueued, selecting: selecting, exiting: true) else {
            // `server` all the same, from the account as written (no password is asked for).
            let server = session.account?.server.address
            output.print(json ? JSON.object([("server", .string(server)), ("flushed", .array([]))]).serialized
                              : allQueued ? (try? session.storage.outbox.list().isEmpty) == false
                                  ? tr("Nothing to send now: what is in the outbox is held until its time (mailto-route outbox list).")
                                  : tr("The outbox is empty: nothing to send.")
                              : tr("Nothing in the outbox is due."))
            return .success
        }
        print(result, json: json, output: output)
        if let error = reportStop(of: result, output: output) { return ExitStatus(for: error.kind) }
        return status(of: result.reports)
    }

    /// Says why a flush stopped before it was through (docs/design.md rule 9) and returns the
    /// outbox's error; `nil` when it did not stop.
    static func reportStop(of result: OutboxFlushResult, output: Output) -> OutboxError? {
        guard let error = FlushReport.stoppingError(in: result.reports) else { return nil }
        output.error("mailto-route: " + tr("the flush stopped: nothing is sent while the outbox cannot record what it sends: %@", error.description))
        return error
    }

    static func status(of reports: [FlushReport]) -> ExitStatus {
        if reports.contains(where: { $0.outcome == .failed }) { return .failure }
        if reports.contains(where: { $0.outcome == .rescheduled || $0.outcome == .skipped }) { return .queued }
        return .success
    }

    static func print(_ result: OutboxFlushResult, json: Bool, output: Output) {
        if json {
            output.print(JSON.object([
                ("server", .string(result.server)),
                ("flushed", .array(result.reports.map { report in
                    let delivery = result.deliveries[report.id]
                    return .object([
                        ("id", .string(report.id)),
                        ("recipients", .strings(report.entry.recipients)),
                        ("accepted", delivery.map { .strings($0.accepted) } ?? .null),
                        ("refused", delivery.map { delivery in .array(delivery.refused.map { refusal in
                            .object([("address", .string(refusal.address)), ("reply", .string(refusal.reply))])
                        }) } ?? .null),
                        ("draft", .string(delivery?.draft)),
                        ("warnings", .strings(delivery?.warnings ?? [])),
                        ("messageId", .string(report.entry.messageId)),
                        ("result", .string(report.outcome.result.rawValue)),
                        ("account", .string(result.accounts[report.id]?.name ?? report.entry.account)),
                        ("reply", .string(result.deliveries[report.id]?.reply)),
                        ("nextAttempt", report.outcome == .rescheduled ? .string(report.entry.nextAttempt.iso8601) : .null),
                        ("error", report.error?.json ?? .null),
                        ("storeError", .string(report.storeError?.description)),
                    ])
                })),
            ]).serialized)
            return
        }
        var lines: [String] = []
        for report in result.reports {
            var line: String
            let delivery = result.deliveries[report.id]
            switch report.outcome {
            case .sent:
                let accepted = delivery.map(\.accepted).flatMap { $0.isEmpty ? nil : $0 } ?? report.entry.recipients
                line = tr("%@: sent to %@ via %@", report.id, accepted.joined(separator: ", "), result.server(of: report.id))
            case .rescheduled: line = tr("%@: still queued, next attempt %@", report.id, report.entry.nextAttempt.localText)
            case .failed: line = tr("%@: failed, moved to failed/ ('outbox retry ID' queues it again)", report.id)
            case .skipped: line = tr("%@: still queued (could not be claimed)", report.id)
            // (A flush has no Stop: only a sheet's Send, whose message it gives back.)
            case .withdrawn: line = tr("%@: stopped before the server had it, taken out of the outbox unsent", report.id)
            }
            if let error = report.error {
                line += ": \(error.kind.rawValue): \(error.message)"
            } else if let reply = result.deliveries[report.id]?.reply, !reply.isEmpty {
                line += ": \(reply)"
            }
            // Who was refused, and where their copy is (or why it is nowhere).
            for warning in delivery?.warnings ?? [] { line += "; " + warning }
            if let problem = report.storeError { line += "; " + tr("outbox: %@", problem.description) }
            lines.append(line.visible)
        }
        guard !lines.isEmpty else {
            output.print(tr("Nothing was sent: what is due is being sent by another mailto-route right now."))
            return
        }
        // One write for the whole report, however many messages.
        output.print(lines.joined(separator: "\n"))
    }

    private static func describe(_ entry: OutboxEntry) -> String {
        let recipients = entry.recipients.joined(separator: ", ")
        return entry.subject.map { tr("to %@, \"%@\"", recipients, $0) } ?? tr("to %@", recipients)
    }
}
