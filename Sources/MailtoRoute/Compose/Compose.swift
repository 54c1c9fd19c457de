#if canImport(Glibc)
import Glibc
#endif

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
            "To: " + email.to.joined(separator: ", "),
            "Cc: " + email.cc.joined(separator: ", "),
            "Bcc: " + email.bcc.joined(separator: ", "),
            "Subject: " + (email.subject ?? ""),
        ]
        for name in EmailData.safeHeaderNames {
            if let value = email.headers[name] { lines.append(name.headerCapitalized + ": " + value) }
        }
        let body = (email.body ?? "").replacingCRLF(with: "\n")
        return lines.joined(separator: "\n") + "\n\n" + body
    }

    /// Reads back what the editor saved: the header up to the first empty line (names in
    /// any case; a line that starts with a space or tab continues the field above it;
    /// addresses split as in a `mailto:` URL, display names removed), then the body with
    /// CRLF line ends. A line that is no `Name: value` ends the header there (the empty
    /// line was left out); a field the header does not take is an error, never dropped.
    /// Attachments and `isBodyHTML` come from `original`.
    public static func email(from text: String, original: EmailData) throws(ComposeError) -> EmailData {
        var email = EmailData(isBodyHTML: original.isBodyHTML, attachments: original.attachments)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        var header: [(name: String, value: String)] = []
        // A line of spaces only is the empty line too: editors and users leave them.
        while let line = lines.first, !String(line).trimmingSpaces().isEmpty {
            if line.first == " " || line.first == "\t", !header.isEmpty {
                header[header.count - 1].value += " " + String(line).trimmingSpaces()
                lines.removeFirst()
                continue
            }
            guard let field = headerField(line) else {
                // The body starts here, unless a field follows before the empty line:
                // then this line broke the header (a wrapped address), and guessing
                // would move header lines into the body.
                let rest = lines.dropFirst().prefix { !String($0).trimmingSpaces().isEmpty }
                if let next = rest.lazy.compactMap({ headerField($0)?.name }).first(where: fieldNames.contains) {
                    throw ComposeError("the header has a line that is no 'Name: value' before its \(next.headerCapitalized) field: \(String(line).trimmingSpaces())")
                }
                break
            }
            guard fieldNames.contains(field.name) else {
                throw ComposeError("the header has a field '\(String(line.prefix { $0 != ":" }).trimmingSpaces())' it does not take (it takes \(fields.joined(separator: ", ")))")
            }
            header.append((field.name, String(field.value).trimmingSpaces()))
            lines.removeFirst()
        }
        for (name, value) in header {
            switch name {
            case "to": email.to += try addresses(value, field: "To")
            case "cc": email.cc += try addresses(value, field: "Cc")
            case "bcc": email.bcc += try addresses(value, field: "Bcc")
            case "subject": email.subject = value
            default: if !value.isEmpty { email.headers[name] = value }
            }
        }
        if let first = lines.first, String(first).trimmingSpaces().isEmpty { lines.removeFirst() }
        let body = lines.joined(separator: "\r\n")
        email.body = body.isEmpty && original.body == nil ? nil : body
        return email
    }

    /// The lower-case name and the value of a `Name: value` line (RFC 5322 §2.2: a name is
    /// printable ASCII without spaces), or `nil` when the line is none.
    static func headerField(_ line: Substring) -> (name: String, value: Substring)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].lowercased().trimmingSpaces()
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
        return (name, line[line.index(after: colon)...])
    }

    /// An address list, split exactly as the `mailto:` parser splits one.
    static func addresses(_ value: String, field: String) throws(ComposeError) -> [String] {
        do {
            return try MailtoURL.parse("mailto:?to=" + PercentEncoding.unreservedOnly(value)).to
        } catch {
            throw ComposeError("the \(field) field: \(error.problem)")
        }
    }

    /// What came of the editor.
    public enum Edited {
        /// The editor exited 0; the message as it was saved.
        case edited(EmailData)
        /// The editor failed (its exit status or why it did not start); the message as it
        /// was, for keeping as a draft.
        case editorFailed(String, EmailData)
    }

    /// Writes `email` to a file of the user's only (0600, in a 0700 directory under
    /// `$XDG_STATE_HOME/mailto-route/compose/`), runs `$VISUAL`, else `$EDITOR`, else
    /// `editor`, else `vi` on it in the foreground of this terminal, and reads it back.
    /// The editor's command is the user's own setting and may hold arguments, so it runs
    /// as `sh -c '$EDITOR "$1"' sh FILE`: the file name is an argument, never shell text.
    public static func edit(_ email: EmailData) throws -> Edited {
        let directory = try StorageLocations.current().stateDirectory + "/compose"
        try makeDirectories(directory)
        var template = Array((directory + "/message-XXXXXX.eml").utf8CString)
        let descriptor = mkstemps(&template, 4)
        guard descriptor >= 0 else { throw ComposeError("cannot create a file in \(directory): \(String(cString: strerror(errno)))") }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        let file = FileDescriptor(descriptor, path: path)
        try file.writeAll(Array(text(of: email).utf8))
        try file.close()

        let status = runEditor(on: path)
        guard let saved = readWholeFile(path) else {
            return .editorFailed("cannot read back \(path): \(String(cString: strerror(errno)))", email)
        }
        let text = String(decoding: saved, as: UTF8.self)
        let edited: EmailData
        do {
            edited = try Compose.email(from: text, original: email)
        } catch {
            // Nothing the user wrote is lost: the whole text becomes the draft's body.
            var kept = email
            kept.body = text.replacingCRLF(with: "\n").split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
            return .editorFailed("the header does not read (\(error.description)); the whole text is the draft's body", kept)
        }
        guard status == 0 else { return .editorFailed("the editor exited with status \(status)", edited) }
        return .edited(edited)
    }

    /// The editor command the user set.
    static var editorCommand: String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = getenv(name).map({ String(cString: $0) }), !value.trimmingSpaces().isEmpty { return value }
        }
        return access("/usr/bin/editor", X_OK) == 0 ? "/usr/bin/editor" : "vi"
    }

    /// Runs the editor on `path` with this process's terminal and waits for it; its exit
    /// status, or 127 when it could not be started.
    static func runEditor(on path: String) -> Int32 {
        let argv = ["/bin/sh", "-c", editorCommand + " \"$1\"", "sh", path]
        var cArgv: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArgv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, nil, &cArgv, environ) == 0 else { return 127 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // WIFEXITED / WEXITSTATUS by hand: the macros do not import.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
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
        let to = (email.to + email.cc + email.bcc).joined(separator: ", ")
        terminal.write("To: \(to.isEmpty ? "(nobody)" : to.visible)\nSubject: \((email.subject ?? "").visible)\n")
        let answer = terminal.ask("[s]end, save as [d]raft, [c]ancel? ", retry: "Please answer s, d or c.\n",
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
