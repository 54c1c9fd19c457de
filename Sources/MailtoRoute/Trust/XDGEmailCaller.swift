import DesktopIntegration
import MailtoCore

/// Who asked when `xdg-email` runs its hook (`xdg-email-hook.sh`, which runs `open
/// --xdg-email URL`), judged from the caller chain in `/proc`, and failing closed.
///
/// xdg-email is not a trusted door by itself: Chromium, Chrome, Brave, Edge and every
/// Electron app open a web page's `mailto:` link by running `xdg-email URL`, and LibreOffice's
/// senddoc runs `xdg-email URL` too, with the same `attach=file:///…` form, so the URL and
/// xdg-email's arguments cannot tell a page from a document. What can be told:
///
/// - A file named by xdg-email's own `--attach FILE` option: only a program on this
///   machine writes xdg-email's argument list (a person in a terminal, a file manager's
///   "Send to", a script). A browser hands xdg-email one argument, the page's URL, and
///   never an option.
/// - LibreOffice's senddoc as xdg-email's parent: a script of the system's LibreOffice.
/// - Debian's senddoc starts xdg-email in the background and exits at once, so by the
///   time the hook runs, xdg-email's parent is init or a subreaper. What the kernel keeps
///   is the desktop's app scope (systemd's `app-…-libreoffice\x2dwriter-….scope`), which
///   every descendant of the launched LibreOffice stays in: an xdg-email whose parent is
///   outside its scope was left by a program that exited, and in LibreOffice's scope, that
///   program was LibreOffice's own.
///
/// - Without a scope (Writer started from a terminal, openbox, Xfce, i3), an xdg-email
///   left behind is LibreOffice's for the files it asks for that lie in the temporary
///   directory of this user's running LibreOffice (`LibreOfficeDocuments`): those files,
///   and no other.
///
/// Everything else is untrusted: a browser, an unknown or another user's program, a chain
/// that cannot be read, and an xdg-email orphaned outside LibreOffice's scope (Qt's
/// detached start leaves one too) asking for a file outside LibreOffice's temporary
/// directory.
public enum XDGEmailCaller {
    /// The trust for the hook this process runs as, for the files `requested` (the URL's
    /// `attach=` values): reads its parent (xdg-email), xdg-email's parent and, when that
    /// has exited, this user's running LibreOffice from `/proc`.
    public static func inspect(requested: [String]) -> AttachmentTrust {
        let xdgEmail = ProcessFacts.read(pid: ProcessFacts.ownParent)
        return judge(xdgEmail: xdgEmail, caller: xdgEmail.flatMap { ProcessFacts.read(pid: $0.parent) },
                     ownUID: ProcessFacts.ownUID, fileOwner: fileOwner, resolve: resolvedPath,
                     requested: requested.map { (try? LocalAttachments.candidatePaths($0)) ?? [] },
                     offices: { LibreOfficeDocuments.running(ownUID: ProcessFacts.ownUID) })
    }

    /// The judgement itself, on facts read already (tested on values built from text).
    /// `xdgEmail` is the hook's parent; `caller` is its parent as it is now; `requested`,
    /// the paths each of the URL's `attach=` values may name; `offices`, this user's
    /// running LibreOffice, read only when xdg-email was left behind.
    public static func judge(
        xdgEmail: ProcessFacts?, caller: ProcessFacts?, ownUID: UInt32,
        fileOwner: (String) -> UInt32?, resolve: (String) -> String?,
        requested: [[String]] = [], offices: () -> [LibreOfficeDocuments.Office] = { [] }
    ) -> AttachmentTrust {
        guard let xdgEmail, xdgEmail.uid == ownUID else { return .none }
        guard let options = XDGEmailArguments(xdgEmail) else {
            // Not xdg-email: the hook (or open --xdg-email) run by something else.
            return AttachmentTrust(files: .only([]), requester: displayName(of: xdgEmail))
        }
        let attached = Set(options.attachments.compactMap { path -> String? in
            let full = path.first == UInt8(ascii: "/") ? path : xdgEmail.workingDirectory.map { Array("\($0)/".utf8) + path }
            return full.flatMap { resolve(LocalPath.text($0)) }
        })
        let ownCaller = caller.flatMap { $0.uid == ownUID && $0.pid > 1 && $0.startTime <= xdgEmail.startTime ? $0 : nil }
        if let ownCaller, isSenddoc(ownCaller, fileOwner: fileOwner) {
            return AttachmentTrust(files: .all, requester: "LibreOffice")
        }
        // Left behind: no parent of its own, or one outside the scope it was started in.
        let orphaned = ownCaller == nil || (xdgEmail.appUnit != nil && ownCaller?.appUnit != xdgEmail.appUnit)
        if orphaned, let unit = xdgEmail.appUnit, let application = applicationID(ofUnit: unit), isLibreOffice(application) {
            return AttachmentTrust(files: .all, requester: "LibreOffice")
        }
        // No scope: LibreOffice's own temporary files, when xdg-email was left behind (a
        // browser stays the parent of the xdg-email it runs).
        if orphaned || ownCaller.map(isUserManager) == true {
            let documents = LibreOfficeDocuments.documents(
                requested, in: offices(), ownUID: ownUID, fileOwner: fileOwner, resolve: resolve)
            if !documents.isEmpty { return AttachmentTrust(files: .only(attached.union(documents)), requester: "LibreOffice") }
        }
        // Named by its scope when it has left no parent behind, else by its parent.
        let requester = orphaned
            ? xdgEmail.appUnit.flatMap(applicationID(ofUnit:)).map(knownName) : ownCaller.flatMap(displayName(of:))
        return AttachmentTrust(files: .only(attached), requester: requester)
    }

    // MARK: - The programs

    /// LibreOffice's `senddoc` script, run by a shell: `/bin/sh …/program/senddoc …`, a
    /// file of the system's (owned by root) in a LibreOffice installation.
    static func isSenddoc(_ process: ProcessFacts, fileOwner: (String) -> UInt32?) -> Bool {
        guard let script = scriptPath(of: process) else { return false }
        let parts = script.split(separator: "/")
        guard parts.count >= 3, parts[parts.count - 1] == "senddoc", parts[parts.count - 2] == "program",
              parts.dropLast(2).contains(where: { $0.lowercased().hasPrefix("libreoffice") }) else { return false }
        return fileOwner(script) == 0
    }

    /// The user's service manager (`systemd --user`), a subreaper: an orphan of any of its
    /// services' descendants becomes its child.
    static func isUserManager(_ process: ProcessFacts) -> Bool {
        (process.executable ?? process.arguments.first).map { baseName($0) == "systemd" } == true
            && process.arguments.contains("--user")
    }

    /// The application id of a desktop app unit: `app[-LAUNCHER]-ID[@RANDOM].service` or
    /// `app[-LAUNCHER]-ID-RANDOM.scope`, `-` inside ID escaped as `\x2d`
    /// (systemd.io/DESKTOP_ENVIRONMENTS).
    public static func applicationID(ofUnit unit: String) -> String? {
        var name = Substring(unit)
        var parts: [Substring]
        if name.hasSuffix(".scope") {
            name = name.dropLast(6)
            parts = name.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count >= 3 else { return nil }
            parts.removeLast()
        } else if name.hasSuffix(".service") {
            name = name.dropLast(8)
            if let at = name.firstIndex(of: "@") { name = name[..<at] }
            parts = name.split(separator: "-", omittingEmptySubsequences: false)
        } else {
            return nil
        }
        guard parts.count >= 2, parts[0] == "app", let id = parts.last, !id.isEmpty else { return nil }
        return unescapeUnitName(id)
    }

    /// LibreOffice's desktop ids: Debian's `libreoffice-writer`, `-calc`, … and the
    /// upstream and Flatpak `org.libreoffice.LibreOffice…`.
    static func isLibreOffice(_ application: String) -> Bool {
        application == "libreoffice" || application.hasPrefix("libreoffice-")
            || application.hasPrefix("org.libreoffice.LibreOffice")
    }

    /// The name a person knows `process` by: a script's name, or its program's, with the
    /// browsers and mail programs people know by another name named so.
    static func displayName(of process: ProcessFacts) -> String? {
        if let script = scriptPath(of: process) { return baseName(script) }
        let program = process.executable ?? process.arguments.first
        return program.map { knownName(baseName($0)) }
    }

    /// The name a person knows `process` by, when it is one of `knownPrograms`.
    static func knownProgram(_ process: ProcessFacts) -> String? {
        let program = process.executable ?? process.arguments.first
        return program.map { baseName($0).lowercased() }.flatMap { name in
            knownPrograms.first { name.hasPrefix($0.0) }?.1
        }
    }

    static func knownName(_ program: String) -> String {
        let lower = program.lowercased()
        for (prefix, name) in knownPrograms where lower.hasPrefix(prefix) { return name }
        return program
    }

    /// Program (file or desktop id) prefixes and the names people know them by, the web
    /// browsers first: Chromium's engine opens mailto: links with xdg-email.
    static let knownPrograms: [(String, String)] = [
        ("chromium", "Chromium"), ("org.chromium.chromium", "Chromium"), ("chrome", "Google Chrome"),
        ("google-chrome", "Google Chrome"), ("com.google.chrome", "Google Chrome"), ("brave", "Brave"),
        ("com.brave.browser", "Brave"), ("msedge", "Microsoft Edge"), ("microsoft-edge", "Microsoft Edge"),
        ("vivaldi", "Vivaldi"), ("opera", "Opera"), ("electron", tr("an Electron application")),
        ("firefox", "Firefox"), ("org.mozilla.firefox", "Firefox"), ("thunderbird", "Thunderbird"),
        ("soffice", "LibreOffice"), ("libreoffice", "LibreOffice"),
    ]

    /// The script a shell runs: `sh SCRIPT ARGS…` (how the kernel runs a `#!` file) gives
    /// `SCRIPT`; an interactive shell or `sh -c` gives `nil`.
    static func scriptPath(of process: ProcessFacts) -> String? {
        guard process.arguments.count >= 2, let shell = process.executable ?? process.arguments.first,
              shells.contains(baseName(shell)) else { return nil }
        let script = process.arguments[1]
        return script.hasPrefix("/") ? script : nil
    }

    static let shells: Set<String> = ["sh", "dash", "bash", "zsh", "ksh", "mksh", "busybox", "ash", "yash", "posh"]

    /// systemd's unit-name escapes (`\xNN`) undone.
    static func unescapeUnitName(_ name: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(name.utf8)[...]
        while let byte = utf8.first {
            if byte == UInt8(ascii: "\\"), utf8.count >= 4, utf8.dropFirst().first == UInt8(ascii: "x"),
               let value = UInt8(String(decoding: utf8.dropFirst(2).prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(4)
            } else {
                bytes.append(byte)
                utf8 = utf8.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// xdg-email's own command line (`sh /usr/bin/xdg-email [options] [address | mailto-uri]…`):
/// the files its `--attach` options name, the option values read as xdg-email reads them.
struct XDGEmailArguments {
    /// Each `--attach` value's bytes: a file's name need not be UTF-8.
    var attachments: [[UInt8]] = []

    /// `nil` when `process` is not xdg-email.
    init?(_ process: ProcessFacts) {
        let arguments = process.arguments
        let scriptIndex: Int
        if let first = arguments.first, baseName(first) == "xdg-email" {
            scriptIndex = 0
        } else if XDGEmailCaller.scriptPath(of: process).map({ baseName($0) }) == "xdg-email" {
            scriptIndex = 1
        } else {
            return nil
        }
        var index = scriptIndex + 1
        while index < arguments.count {
            let word = arguments[index]
            if Self.optionsWithValue.contains(word), index + 1 < arguments.count {
                if word == "--attach" {
                    let bytes = process.argumentBytes
                    attachments.append(index + 1 < bytes.count ? bytes[index + 1] : Array(arguments[index + 1].utf8))
                }
                index += 2
            } else {
                index += 1
            }
        }
    }

    /// xdg-email 1.1's options that take the next word as their value.
    static let optionsWithValue: Set<String> = ["--cc", "--bcc", "--subject", "--body", "--attach"]
}

/// The last component of `path`.
private func baseName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}
