#if canImport(Glibc)
import Glibc
#endif
import MIMEMessage

/// `mailto-route compose`: the message in the user's editor as a small header and a
/// body, then send, save or cancel. What the user writes there is theirs: trusted, as
/// `send` is.
public enum Compose {
    /// The header fields the editor shows, in order, with their EmailData keys.
    static let fields = ["To", "Cc", "Bcc", "Subject", "In-Reply-To", "References", "Keywords"]
    static let fieldNames = Set(fields.map { $0.lowercased() })

    /// The text the editor opens: `Name: value` lines, a blank line, the body (LF line
    /// ends, as editors write them).
    public static func text(of email: EmailData) -> String {
        var lines = [
            "To: " + email.to.map(email.mailbox).joined(separator: ", "),
            "Cc: " + email.cc.map(email.mailbox).joined(separator: ", "),
            "Bcc: " + email.bcc.map(email.mailbox).joined(separator: ", "),
            "Subject: " + (email.subject ?? ""),
        ]
        for name in EmailData.safeHeaderNames {
            if let value = email.headers[name] { lines.append(name.headerCapitalized + ": " + value) }
        }
        let body = (email.body ?? "").replacingCRLF(with: "\n")
        return lines.joined(separator: "\n") + "\n\n" + body
    }

    /// Reads back what the editor saved: the header by the one header reader
    /// (`HeaderSection`: names in any case, continuation lines, the empty line), addresses
    /// by the one address-list reader (display names removed), then the body with CRLF
    /// line ends. A line that is no `Name: value` ends the header there (the empty line was
    /// left out), unless a field follows it before the empty line: then it broke the header
    /// (a wrapped address), and guessing would move header lines into the body. A field
    /// the header does not take is an error, never dropped. Attachments and `isBodyHTML`
    /// come from `original`.
    public static func email(from text: String, original: EmailData) throws(ComposeError) -> EmailData {
        var email = EmailData(isBodyHTML: original.isBodyHTML, attachments: original.attachments)
        let bytes = Array(text.utf8)
        let header = HeaderSection(bytes)
        if let stray = header.strayLine {
            let rest = HeaderSection(bytes[stray.upperBound...].drop { $0 == 0x0D || $0 == 0x0A })
            if let next = rest.fields.first(where: { fieldNames.contains($0.name) }) {
                let line = String(decoding: bytes[stray], as: UTF8.self).trimmingSpaces()
                throw ComposeError(tr("the header has a line that is no 'Name: value' before its %@ field: %@", next.name.headerCapitalized, line))
            }
        }
        for field in header.fields {
            // A folded line joins the one above it with one space, as the user meant it.
            let raw = String(decoding: field.raw.drop { $0 != UInt8(ascii: ":") }.dropFirst(), as: UTF8.self)
            let value = raw.split(whereSeparator: \.isNewline).map { String($0).trimmingSpaces() }
                .filter { !$0.isEmpty }.joined(separator: " ")
            switch field.name {
            case "to": email.to += try addresses(value, field: "To", names: &email.names)
            case "cc": email.cc += try addresses(value, field: "Cc", names: &email.names)
            case "bcc": email.bcc += try addresses(value, field: "Bcc", names: &email.names)
            case "subject": email.subject = value
            case let name where fieldNames.contains(name): if !value.isEmpty { email.headers[name] = value }
            default:
                let written = String(decoding: field.raw.prefix { $0 != UInt8(ascii: ":") }, as: UTF8.self).trimmingSpaces()
                throw ComposeError(tr("the header has a field '%@' it does not take (it takes %@)", written, fields.joined(separator: ", ")))
            }
        }
        let body = String(decoding: bytes[header.bodyStart...], as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
            .joined(separator: "\r\n")
        email.body = body.isEmpty && original.body == nil ? nil : body
        return email
    }

    /// The addresses of a field's list; one holding a control character (a NUL, an
    /// escape) is refused here, before it could reach a header or an SMTP command (rule 4).
    /// The names written with them go to `names`, read as a typed list is
    /// (`EmailData.addRecipients`).
    static func addresses(_ value: String, field: String, names: inout [String: String]) throws(ComposeError) -> [String] {
        let found = addrSpecs(in: value.utf8)
        var named = EmailData()
        if (try? named.addRecipients(value, to: \.to)) != nil {
            for (address, name) in named.names where found.contains(address) { names[address] = name }
        }
        if let bad = found.first(where: { $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }) {
            throw ComposeError(tr("the %@ field: the address '%@' holds a control character", field, bad.visible))
        }
        return found
    }

    /// What came of the editor.
    public enum Edited {
        /// The editor exited 0; the message as it was saved.
        case edited(EmailData)
        /// The editor failed (its exit status or why it did not start); the message as it
        /// was, for keeping as a draft.
        case editorFailed(String, EmailData)
    }

    /// Writes `email` to a file of the user's only (0600, in `directory`, made 0700), runs
    /// `editor` (`$VISUAL`, else `$EDITOR`), else `editor`, else `vi` on it in the
    /// foreground of this terminal, and reads it back. The editor's command is the user's
    /// own setting and may hold arguments, so it runs as `sh -c '$EDITOR "$1"' sh FILE`:
    /// the file name is an argument, never shell text.
    ///
    /// The file is left in place, at `file`: what the user wrote is there until the caller
    /// has put the message somewhere else (sent, queued, saved) and removes it (rule 3).
    public static func edit(_ email: EmailData, in directory: String, editor: String?) throws -> (edited: Edited, file: String) {
        let file = try makeTemporaryFile(in: directory, prefix: "message-", suffix: ".eml")
        let path = file.path
        do {
            try file.writeAll(Array(text(of: email).utf8))
            try file.close()
        } catch {
            unlink(path)
            throw error
        }
        return (editAndRead(email, at: path, editor: editor), path)
    }

    private static func editAndRead(_ email: EmailData, at path: String, editor: String?) -> Edited {

        let status = runInForeground(["/bin/sh", "-c", command(editor) + " \"$1\"", "sh", path])?.shellStatus ?? 127
        let saved: [UInt8]
        do {
            guard let read = try readFileIfExists(path) else { return .editorFailed(tr("the editor removed %@", path), email) }
            saved = read
        } catch {
            return .editorFailed(Failure(error, otherwise: .permanent).message, email)
        }
        let text = String(decoding: saved, as: UTF8.self)
        let edited: EmailData
        do {
            edited = try Compose.email(from: text, original: email)
        } catch {
            // Nothing the user wrote is lost: the whole text becomes the draft's body.
            var kept = email
            kept.body = text.replacingCRLF(with: "\n").split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
            return .editorFailed(tr("the header does not read (%@); the whole text is the draft's body", error.description), kept)
        }
        guard status == 0 else { return .editorFailed(tr("the editor exited with status %@", status), edited) }
        return .edited(edited)
    }

    /// The editor command the user set, else Debian's choice, else vi.
    static func command(_ editor: String?) -> String {
        editor ?? (access("/usr/bin/editor", X_OK) == 0 ? "/usr/bin/editor" : "vi")
    }
}

/// What keeps `compose` from opening the editor.
public struct ComposeError: ClassifiedError, Sendable {
    public var message: String
    public var kind: ErrorKind { .configuration }
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension String {
    func replacingCRLF(with separator: String) -> String {
        split(separator: "\r\n", omittingEmptySubsequences: false).joined(separator: separator)
    }
}

extension Compose {
    /// What the user chose after writing the message.
    public enum Choice: Equatable, Sendable {
        case send, save, cancel
    }

    /// Asks on the terminal: `[s]end, save as [d]raft, [c]ancel`. `nil` when there is no
    /// terminal. End of input, no answer in `timeout` seconds or three answers not
    /// understood keep the message as a draft: only `c` discards what the user wrote.
    public static func askWhatNext(for email: EmailData, timeout: Double = 600) -> Choice? {
        guard let terminal = Terminal.open() else { return nil }
        // Each recipient under the field the user put them in: a Bcc is not a To.
        var summary = tr("To: %@\n", email.to.isEmpty ? tr("(nobody)") : email.to.joined(separator: ", ").visible)
        if !email.cc.isEmpty { summary += "Cc: \(email.cc.joined(separator: ", ").visible)\n" }
        if !email.bcc.isEmpty { summary += "Bcc: \(email.bcc.joined(separator: ", ").visible)\n" }
        terminal.write(summary + tr("Subject: %@\n", (email.subject ?? "").visible))
        // Translators: the letters in brackets stay s, d and c (what the user types).
        let answer = terminal.ask(tr("[s]end, save as [d]raft, [c]ancel? "), retry: tr("Please answer s, d or c.\n"),
                                  attempts: 3, timeout: timeout) { word -> Choice? in
            switch word {
            case "s", "send": .send
            case "d", "draft", "save": .save
            case "c", "cancel": .cancel
            default: nil
            }
        }
        switch answer {
        case .chosen(let choice): return choice
        case .endOfInput, .timedOut:
            terminal.write("\n")
            return .save
        case .notUnderstood: return .save
        }
    }
}

extension Session {
    /// `compose`, the whole run: the message (`start`, from a URL or empty) in the
    /// editor, then the user's choice, routed to its end; `present` says what came of it.
    /// What the user wrote is kept, whatever the editor did (rule 3).
    public func compose(_ start: EmailData, present: (RouteReport) -> Void) throws -> RouteReport {
        var report: RouteReport
        // A new message: the account's signature below it, to edit as the rest (RFC 3676).
        var start = start
        if let signature = account(for: RouteRequest(email: start, source: .compose))?.signature {
            start.body = Signature.appended(signature, to: start.body ?? "", lineBreak: "\r\n")
        }
        let (edited, file) = try Compose.edit(start, in: storage.stateDirectory + "/compose", editor: environment.editor)
        switch edited {
        case .editorFailed(let why, let email):
            report = route(RouteRequest(email: email, source: .compose, forcedPath: .draft))
            report.warnings.insert(report.draft == nil ? why : tr("%@: the message is kept as a draft", why), at: 0)
        case .edited(let email):
            switch Compose.askWhatNext(for: email) {
            case .send:
                report = route(RouteRequest(email: email, source: .compose))
            case .save, nil:
                report = route(RouteRequest(email: email, source: .compose, forcedPath: .draft))
            case .cancel:
                report = RouteReport(path: .compose, result: .cancelled)
                log(report, source: .compose)
            }
        }
        // The editor's file goes once the message is elsewhere, or the user discarded it;
        // when it, or part of it, could be kept nowhere (no draft either), the file is what
        // is left of it.
        // Text that is not UTF-8 (an editor set to Latin-1) went as U+FFFD: said, and the
        // file, as written, stays too.
        let asWritten = (try? readFileIfExists(file)).flatMap { $0 }
        let notUTF8 = asWritten.map { String(validating: $0, as: UTF8.self) == nil } ?? false
        if notUTF8, report.result != .cancelled {
            report.warnings.append(tr("what you wrote is not UTF-8 text: what did not read is shown as %@; as written, it is kept in %@",
                                      "\u{FFFD}", LocalPath.display(file)))
        } else if (report.result != .failed || report.draft != nil) && !report.keptOnlyByCaller {
            unlink(file)
        } else {
            report.warnings.append(tr("what you wrote is kept in %@", LocalPath.display(file)))
        }
        return finish(report, source: .compose, present: present)
    }
}
