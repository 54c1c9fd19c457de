#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration

/// What a handoff did: who has the message now, and what did not go with it.
public struct HandoffResult: Equatable, Sendable {
    /// A desktop id (`thunderbird.desktop`) or `webmail:SERVICE`.
    public var handlerID: String
    public var handlerName: String
    /// Each thing the report should say: dropped hfields, fallbacks taken.
    public var warnings: [String]
    /// What the handler did not receive (attachments, the part of a body over 64 KiB);
    /// also named in `warnings`. The router may save a draft when this is not empty.
    public var notCarried: [String]

    public init(handlerID: String, handlerName: String, warnings: [String], notCarried: [String]) {
        self.handlerID = handlerID
        self.handlerName = handlerName
        self.warnings = warnings
        self.notCarried = notCarried
    }
}

/// The handoff path: pass a message to the user's mail program (the freedesktop default
/// for `x-scheme-handler/mailto`, found through GIO) or to a webmail compose page.
public enum Handoff {
    /// Set in the environment of every mail program mailto-route starts, to the start
    /// time in seconds: a mailto-route that finds it fresh was started by that program,
    /// and handing off again would loop (docs/design.md rule 5).
    public static let loopGuardVariable = "MAILTO_ROUTE_HANDOFF"
    /// How long the guard counts as fresh: a loop closes within a second or two, and a
    /// mail program started long ago may open links for real.
    static let loopGuardSeconds = 30
    /// The largest body carried in a `mailto:` URL (or on a mail program's command line).
    public static let maximumURLBodyBytes = 64 * 1024
    /// The longest word an argv may hold: Linux refuses more than 128 KiB (MAX_ARG_STRLEN,
    /// with the closing NUL). A percent-encoded body takes up to three times its bytes (five
    /// in a webmail URL, encoded twice), so a body within `maximumURLBodyBytes` may still
    /// not fit: what is carried is measured as it is passed.
    static let maximumArgumentBytes = 128 * 1024 - 1

    /// Whether `words` can be passed to a program: each fits in one argv word.
    static func fitInArgv(_ words: [String]) -> Bool {
        words.allSatisfy { $0.utf8.count <= maximumArgumentBytes }
    }

    /// Whether a body of `email` is within what a URL or command line carries, once
    /// `carried(email)` has made the words that carry it.
    static func bodyFits(_ email: EmailData, _ carried: (EmailData) throws -> [String]) rethrows -> Bool {
        try (email.body?.utf8.count ?? 0) <= maximumURLBodyBytes && fitInArgv(carried(email))
    }

    /// Where a handoff goes, chosen once: the program (or webmail service), and what its
    /// choice had to say (a configured handler missing, say).
    public struct Destination: Sendable {
        let target: HandoffTarget
        /// A desktop id or `webmail:SERVICE`.
        public let id: String
        public let name: String
        let warnings: [String]
        /// The browser a webmail page opens in (`webmail-browser=`, its profile).
        var browser = WebmailBrowser()
    }

    /// Chooses where a handoff goes now, without starting anything: `handler` when given (a
    /// desktop id or `webmail:SERVICE`: the `handler=` of the `[route]` group), else the
    /// default `mailto:` program unless it is mailto-route, else the default remembered by
    /// `register`, else the best other candidate. Never mailto-route itself. Throws why
    /// there is nowhere to go. A webmail page opens in `browser`.
    static func destination(configured handler: String?, browser: WebmailBrowser, paths: Paths) throws -> Destination {
        var warnings: [String] = []
        let target = try HandlerChoice.choose(configured: handler, paths: paths, warnings: &warnings)
        switch target {
        case .webmail(let service):
            return Destination(target: target, id: "webmail:\(service.rawValue)", name: service.name, warnings: warnings,
                               browser: browser)
        case .application(let app):
            return Destination(target: target, id: app.id ?? app.executable, name: app.name, warnings: warnings)
        }
    }

    /// Hands `email` off to `destination`. `loopGuard` is this run's `MAILTO_ROUTE_HANDOFF`;
    /// `files`, where what the program reads later is written.
    /// The warnings are the handoff's own; the hfields the URL offered and mailto-route did
    /// not take are the caller's to name.
    static func handOff(_ email: EmailData, to destination: Destination, loopGuard: String?, files: HandoffFiles) throws -> HandoffResult {
        try checkLoopGuard(loopGuard)
        let warnings = destination.warnings
        switch destination.target {
        case .webmail(let service):
            return try Webmail.open(email, in: service, browser: destination.browser, warnings: warnings)
        case .application(let app):
            return try launch(email, with: app, warnings: warnings, files: files)
        }
    }

    static func checkLoopGuard(_ value: String?) throws {
        guard let value else { return }
        let started = Int(value) ?? 0
        let now = Int(time(nil))
        if abs(now - started) <= loopGuardSeconds {
            throw DesktopError(.permanent, tr("refusing to hand off: mailto-route was started by the mail program it had just started "
                                              + "(%@ is set), which would loop; check which program handles mailto: links", loopGuardVariable))
        }
    }

    /// What a started mail program gets added to its environment: the loop guard, and the
    /// click's token under both its names, so that its window takes the focus and the
    /// desktop's startup sequence ends there, not in a busy cursor.
    static var guardEnvironment: [String: String] {
        ClickTokenEnvironment.passedOn().merging([loopGuardVariable: String(Int(time(nil)))]) { $1 }
    }

    /// Starts `app` with the canonical URL; or, when there are attachments or a body too
    /// long for a URL, with the command line of the client its `Exec=` really runs, if it
    /// is one. A `Terminal=true` program runs on mailto-route's own terminal when it has
    /// one (in the foreground, waited for), else in the user's terminal emulator. A
    /// program that fails at once did not get the message: that is thrown, as a failure
    /// to start is (the router keeps the message as a draft).
    static func launch(_ email: EmailData, with app: AppInfo, warnings: [String], files handoffFiles: HandoffFiles) throws -> HandoffResult {
        var report = Leftovers(warnings: warnings)
        let id = app.id ?? app.executable
        let asURL = { (email: EmailData) in [MailtoURL.encode(email)] }
        // Held while the program runs on it: the descriptor it is given.
        let terminal = app.needsTerminal ? Terminal.open() : nil
        let (terminalVariable, emulator) = app.needsTerminal ? TerminalEmulator.fromEnvironment() : (nil, nil)
        func start(command: [String]?, uris: [String]) throws {
            let plan = try Launcher.plan(app, command: command, uris: uris, onThisTerminal: terminal != nil,
                                         emulator: emulator, terminalVariable: terminalVariable)
            try Launcher.start(plan, of: app, terminal: terminal?.descriptor, environment: guardEnvironment)
        }
        let needsCommandLine = !email.attachments.isEmpty || !bodyFits(email, asURL)
        let client = needsCommandLine ? MailClient.identify(app) : nil
        if client == nil, !app.needsTerminal {
            // Through GIO (Launcher.plan): its launch connects to the bus first.
            Launcher.connectSessionBusAhead()
        }
        if let client {
            let files = try report.exported(handoffFiles.attachmentPaths(email.attachments), of: email, for: app)
            let onCommandLine = { (email: EmailData) in try client.arguments(for: email, attachments: files, bodyFile: nil) }
            var bodyFile: String?
            var sent = email
            let takenAsFiles = email.to.filter { client.takesAsFile(email.mailbox($0)) }
            if !takenAsFiles.isEmpty {
                sent.to.removeAll { takenAsFiles.contains($0) }
                report.recipientsNotCarried(takenAsFiles, by: app.name)
            }
            // Measured as it will be passed: a NUL becomes U+FFFD (below), three bytes.
            let mended = Leftovers.mendingNUL(sent)
            let lineBreaks = client.passesBodyAsItIs && (email.body?.utf8.contains { $0 == 0x0A || $0 == 0x0D } ?? false)
            if try lineBreaks || !bodyFits(mended, onCommandLine) {
                if client.takesBodyFile {
                    // The file carries the body as it is; the command line carries none.
                    bodyFile = try handoffFiles.bodyFile(email.body ?? "")
                    sent.body = nil
                } else {
                    sent.body = try report.truncating(email, for: app.name) { try bodyFits(Leftovers.mendingNUL($0), onCommandLine) }
                }
            }
            if !client.takesExtraHeaders {
                report.headersNotCarried(email.headers, by: app.name)
            }
            if client != .thunderbird {
                report.htmlNotCarried(email, by: tr("%@'s command line", app.name))
            }
            // Rule 4: a NUL never reaches an argv (it would silently end the value there).
            sent = report.replacingNUL(in: sent, for: app.name)
            let arguments = try client.arguments(for: sent, attachments: files, bodyFile: bodyFile)
            // identify found the client behind wrappers that pass words on: it has a command.
            guard let command = MailClient.command(for: app, arguments: arguments) else {
                throw DesktopError(.permanent, tr("cannot build %@'s command line", app.name))
            }
            try start(command: command, uris: [])
            return report.result(id: id, name: app.name)
        }
        var sent = email
        report.attachmentsNotCarried(email.attachments, because: MailClient.noCommandLineReason(app))
        report.htmlNotCarried(email, by: tr("a mailto: URL"))
        if !bodyFits(email, asURL) {
            sent.body = report.truncating(email, for: app.name) { bodyFits($0, asURL) }
        }
        try start(command: nil, uris: asURL(sent))
        return report.result(id: id, name: app.name)
    }
}

/// What a handoff could not carry, said in the report (docs/design.md rule 2: no silent drop).
struct Leftovers {
    var warnings: [String]
    var notCarried: [String] = []

    /// Recipients `program` would take for files to attach (`MailClient.takesAsFile`): not
    /// on its command line, and named (the router keeps a draft, which has them).
    mutating func recipientsNotCarried(_ addresses: [String], by program: String) {
        for address in addresses {
            notCarried.append(tr("recipient %@", address.visible))
            warnings.append(tr("recipient %@ not carried: %@ would take it for a file to attach, not an address",
                               address.visible, program))
        }
    }

    /// `reason` is asked for only when there is an attachment: finding out why a program
    /// takes none may read its command line (`MailClient.noCommandLineReason`).
    mutating func attachmentsNotCarried(_ attachments: [Attachment], because reason: @autoclosure () -> String) {
        guard !attachments.isEmpty else { return }
        let reason = reason()
        for attachment in attachments {
            notCarried.append(tr("attachment %@", attachment.fileName))
            warnings.append(tr("attachment %@ not carried: %@", attachment.fileName, reason))
        }
    }

    /// `files` as the program sees them: for a Flatpak one (`X-Flatpak`), exported through
    /// the Documents portal first, as GLib does for such a program. Without the portal the
    /// program could not open them: none goes, each is named (the router keeps a draft).
    mutating func exported(_ files: [String], of email: EmailData, for app: AppInfo) -> [String] {
        guard case .flatpak(let appID) = app.packaging, !files.isEmpty else { return files }
        do {
            return try DocumentPortal.export(files, for: appID)
        } catch {
            attachmentsNotCarried(email.attachments, because: tr("%@ runs in Flatpak (%@), and the Documents portal "
                + "that would export the files to it is not available: %@", app.name, appID, error.message))
            return []
        }
    }

    mutating func headersNotCarried(_ headers: [String: String], by name: String) {
        for header in EmailData.safeHeaderNames where headers[header]?.isEmpty == false {
            notCarried.append("header \(header)")
            warnings.append(tr("header %@ not carried: %@'s command line has no field for it", header, name))
        }
    }

    mutating func htmlNotCarried(_ email: EmailData, by carrier: String) {
        guard email.isBodyHTML, email.body != nil else { return }
        notCarried.append(tr("HTML format of the body"))
        warnings.append(tr("the body is HTML, but %@ carries plain text only: it went as text", carrier))
    }

    /// The longest beginning of `email`'s body with which `fits` holds, cut after a line
    /// break when there is one, and a warning that names what was left out. `fits` must
    /// hold for a shorter body whenever it holds for a longer one (an encoded length does).
    mutating func truncating(_ email: EmailData, for name: String, fits: (EmailData) throws -> Bool) rethrows -> String {
        let body = email.body ?? ""
        // Every place a cut may go, within the byte limit; then the last one that fits.
        var ends = [body.startIndex]
        var bytes = 0
        for index in body.indices {
            bytes += body[index].utf8.count
            if bytes > Handoff.maximumURLBodyBytes { break }
            ends.append(body.index(after: index))
        }
        var trial = email
        func fitsUpTo(_ end: String.Index) throws -> Bool {
            trial.body = String(body[..<end])
            return try fits(trial)
        }
        // When the other fields alone are too long, no cut helps: the launch says so.
        guard try fitsUpTo(body.startIndex) else { return body }
        var low = 0, high = ends.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if try fitsUpTo(ends[middle]) { low = middle } else { high = middle - 1 }
        }
        let end = ends[low]
        let lastBreak = body[..<end].lastIndex(where: \.isNewline).map { body.index(after: $0) }
        let kept = String(body[..<(lastBreak ?? end)])
        let left = body.utf8.count - kept.utf8.count
        notCarried.append(trn("the last %@ byte of the body", "the last %@ bytes of the body", left, left))
        warnings.append(tr("body is %@ bytes, more than a mailto: URL carries: %@ got the first %@ bytes, the last %@ bytes were not carried",
                           body.utf8.count, name, kept.utf8.count, left))
        return kept
    }

    /// `email` with each NUL in its subject, body and header fields replaced by U+FFFD,
    /// and a warning naming the fields that had one.
    mutating func replacingNUL(in email: EmailData, for name: String) -> EmailData {
        var fields: [String] = []
        let mended = Self.mendingNUL(email) { fields.append($0) }
        if !fields.isEmpty {
            warnings.append(tr("NUL in %@ shown as U+FFFD: %@'s command line cannot carry it", fields.joined(separator: ", "), name))
        }
        return mended
    }

    /// `email` with each NUL in its subject, body and header fields replaced by U+FFFD;
    /// `found` hears the name of each field that had one.
    static func mendingNUL(_ email: EmailData, found: (String) -> Void = { _ in }) -> EmailData {
        var email = email
        func mended(_ text: String?, _ field: String) -> String? {
            guard let text, text.utf8.contains(0) else { return text }
            found(field)
            return String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }))
        }
        email.subject = mended(email.subject, "subject")
        email.body = mended(email.body, "body")
        for (key, value) in email.headers { email.headers[key] = mended(value, key) }
        return email
    }

    func result(id: String, name: String) -> HandoffResult {
        HandoffResult(handlerID: id, handlerName: name, warnings: warnings, notCarried: notCarried)
    }
}

extension DroppedField {
    /// How a report names an hfield that was not taken (rule 2: no silent drop).
    var warning: String { tr("not taken from the URL: '%@' (%@)", name, reason) }
}
