public import MailtoCore

/// The mail programs that take a message, attachments included, on their command line.
/// A `mailto:` URL cannot carry attachments, and not more than 64 KiB of body.
public enum MailClient: String, CaseIterable, Sendable {
    case thunderbird, evolution, kmail, clawsMail = "claws-mail", sylpheed, balsa, mutt, neomutt

    /// Which client `app` is, from the program its `Exec=` really runs (`ExecLine`: through
    /// `env`, `flatpak run`, `tmux new-window`, a terminal's `-e`), never from its desktop
    /// id: an entry that runs another program than its name says gets the URL, not a
    /// command line that program would misread. `nil` for any other program, and for one
    /// run through a shell or a launcher that would not pass the words on.
    public static func identify(_ app: AppInfo) -> MailClient? {
        guard let line = app.execLine, line.passesArguments else { return nil }
        return line.programNames.lazy.compactMap(named).first
    }

    /// The client a program name (lower-case, without its directory) is.
    static func named(_ name: String) -> MailClient? {
        switch name {
        // Betterbird is Thunderbird's fork and takes the same command line.
        case "thunderbird", "thunderbird-esr", "betterbird": .thunderbird
        case "evolution": .evolution
        case "kmail", "kmail2": .kmail
        case "claws-mail", "claws_mail", "clawsmail": .clawsMail
        case "sylpheed": .sylpheed
        case "balsa": .balsa
        case "mutt": .mutt
        case "neomutt": .neomutt
        default: nil
        }
    }

    /// Why `app` gets no client command line: the program its `Exec=` runs, and how.
    public static func noCommandLineReason(_ app: AppInfo) -> String {
        guard let line = app.execLine else { return tr("%@'s Exec= cannot be read", app.name) }
        if let opaque = line.wrappers.lazy.compactMap({ wrapper -> String? in
            if case .opaque(let name) = wrapper { name } else { nil }
        }).first {
            return tr("%@ runs its program through %@, which mailto-route adds no command line to", app.name, opaque)
        }
        return tr("%@ runs %@, which takes no attachments on a command line mailto-route knows", app.name, ExecLine.baseName(line.program))
    }

    /// Whether a body longer than a URL can carry goes in whole (read from a file).
    public var takesBodyFile: Bool {
        switch self {
        case .thunderbird, .kmail, .mutt, .neomutt: true
        case .evolution, .clawsMail, .sylpheed, .balsa: false
        }
    }

    /// Whether the body would stand on the command line as it is, line breaks and all
    /// (KMail's `--body`): then a body of more than one line goes in a file instead
    /// (`takesBodyFile`), so that no CR or LF of a link reaches an argv (rule 4).
    public var passesBodyAsItIs: Bool { self == .kmail }

    /// Whether this program, given `word` where an address goes, would take it for
    /// something else: KMail reads every word after its options that parses as a URL with
    /// a scheme (`file:///etc/passwd`, or `mailto:…?attach=…` and its attach=) as a file
    /// to attach (its CommandLineInfo). A link's "recipient" must not attach a file (rule 8).
    public func takesAsFile(_ word: String) -> Bool {
        self == .kmail && Self.hasURLScheme(word)
    }

    /// Whether `word` starts with a URL scheme and its colon (RFC 3986: a letter, then
    /// letters, digits, `+`, `-` or `.`), after any leading white space.
    static func hasURLScheme(_ word: String) -> Bool {
        let bytes = word.utf8.drop { $0 == 0x20 || $0 == 0x09 }
        guard let first = bytes.first, isLetter(first) else { return false }
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: ":") { return true }
            guard isLetter(byte) || (0x30...0x39).contains(byte) || "+-.".utf8.contains(byte) else { return false }
        }
        return false
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// Whether `in-reply-to`, `references` and `keywords` reach the program: they do in
    /// a `mailto:` URL, not on Thunderbird's `-compose` or KMail's option list.
    public var takesExtraHeaders: Bool {
        switch self {
        case .thunderbird, .kmail: false
        case .evolution, .clawsMail, .sylpheed, .balsa, .mutt, .neomutt: true
        }
    }

    /// The words after the program: `email` with `attachments` (absolute paths), and the
    /// body read from `bodyFile` when given (then `email.body` is not used).
    ///
    /// Untrusted values (from a URL) only ever reach these programs as whole argv words,
    /// or percent-encoded inside the one word that holds several fields, so that no `,`,
    /// quote or `&` can add a field (docs/design.md rule 4).
    public func arguments(
        for email: EmailData, attachments: [String], bodyFile: String?
    ) throws(DesktopError) -> [String] {
        var urlEmail = email
        if bodyFile != nil { urlEmail.body = nil }
        let url = MailtoURL.encode(urlEmail)
        let fileURIs = attachments.map(URIs.file)
        switch self {
        case .thunderbird:
            // -compose "to=…,subject=…,attachment=…": Thunderbird (GetArgs in
            // MsgComposeCommands.js) splits the fields on commas outside quotes, where a
            // quote opens only right after `=` and closes only before `,` or the end; it
            // takes a quoted value as it is and percent-decodes (decodeURIComponent) an
            // unquoted one. So every value is percent-encoded and nothing is quoted: no
            // value holds a comma or a quote, and none can end early or start a field.
            // The attachment list too: its separating commas are encoded with the rest,
            // and Thunderbird splits the decoded list on them (ComposeStartup); the commas
            // and quotes of each file's own path are escaped once more in its file URI
            // (URIs.file), so they come out of that decoding still escaped.
            var fields: [String] = []
            func field(_ name: String, _ value: String) {
                fields.append("\(name)=\(URIs.component(value))")
            }
            // Each address with its name (`Asa Berg <asa@example.org>`), as Thunderbird
            // reads an address list.
            if !email.to.isEmpty { field("to", email.to.map(email.mailbox).joined(separator: ",")) }
            if !email.cc.isEmpty { field("cc", email.cc.map(email.mailbox).joined(separator: ",")) }
            if !email.bcc.isEmpty { field("bcc", email.bcc.map(email.mailbox).joined(separator: ",")) }
            if let subject = email.subject { field("subject", subject) }
            if let bodyFile {
                // A path, not a URI: Thunderbird opens it with nsIFile.initWithPath.
                field("message", bodyFile)
            } else if let body = email.body {
                field("body", body)
            }
            if email.isBodyHTML { fields.append("format=html") }
            if !fileURIs.isEmpty { field("attachment", fileURIs.joined(separator: ",")) }
            return ["-compose", fields.joined(separator: ",")]
        case .evolution:
            // Evolution reads attach= in the mailto: URL it is given.
            var words = url
            for (index, uri) in fileURIs.enumerated() {
                let separator = index == 0 && !url.contains("?") ? "?" : "&"
                words += "\(separator)attach=\(URIs.component(uri))"
            }
            return [words]
        case .kmail:
            var words = ["--composer"]
            if let subject = email.subject { words += ["--subject", subject] }
            for address in email.cc { words += ["--cc", email.mailbox(address)] }
            for address in email.bcc { words += ["--bcc", email.mailbox(address)] }
            if let bodyFile {
                words += ["--msg", bodyFile]
            } else if let body = email.body {
                words += ["--body", body]
            }
            for uri in fileURIs { words += ["--attach", uri] }
            // The handoff leaves such recipients out and says so; never passed, whoever asks.
            return words + ["--"] + email.to.map(email.mailbox).filter { !takesAsFile($0) }
        case .clawsMail, .sylpheed:
            return ["--compose", url] + (attachments.isEmpty ? [] : ["--attach"] + attachments)
        case .balsa:
            return ["--compose=\(url)"] + attachments.map { "--attach=\($0)" }
        case .mutt, .neomutt:
            // `-a` takes every following word up to `--`; the address part is a mailto:
            // URL, which mutt reads itself.
            var words: [String] = []
            if let bodyFile { words += ["-i", bodyFile] }
            if !attachments.isEmpty { words += ["-a"] + attachments }
            return words + ["--", url]
        }
    }

    /// The argv that runs `app`'s program with `arguments` in place of its `Exec=` ones:
    /// the wrappers in front of it stay (`env VAR=x`, `tmux new-window`), a Flatpak app
    /// runs through `flatpak run APP-ID`. `nil` when its `Exec=` does not pass words on.
    public static func command(for app: AppInfo, arguments: [String]) -> [String]? {
        guard let line = app.execLine else { return nil }
        if case .flatpak(let appID, _)? = line.wrappers.last,
           let flatpak = line.words[..<line.programIndex].lastIndex(where: { ExecLine.baseName($0) == "flatpak" }) {
            return Array(line.words[...flatpak]) + ["run", appID] + arguments
        }
        return line.command(arguments: arguments)
    }
}
