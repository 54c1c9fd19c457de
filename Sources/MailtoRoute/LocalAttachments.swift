import DesktopIntegration

/// A `mailto:` URL that a local program built, not a web page: what `xdg-email --attach`
/// hands to its hook (`xdg-email-hook.sh`, which runs `open --local`). Its `attach=` and
/// `attachment=` values are files that program attaches, as `send --attach` does (DESIGN.md
/// rule 8), and they become trusted `attachments`; a URL from anywhere else keeps them in
/// `requestedAttachments`, never attached on their own.
///
/// A web page cannot come this way: a click reaches mailto-route through its desktop
/// file (`Exec=… open %u`), which never says `--local`, and only a program that runs on
/// this machine with the user's rights can run `xdg-email` or its hook, and could as well
/// run `send --attach`.
public enum LocalAttachments {
    /// `email` with each requested file attached (an absolute path or a `file:` URI of
    /// this machine), and the `attach` entries of `dropped` gone, since they were taken.
    /// A file that does not exist, or is no regular file this user can read, is an
    /// `input` error naming it: a local program's attachment is never dropped silently
    /// (rule 2).
    public static func trusting(_ email: EmailData) throws(Failure) -> EmailData {
        var trusted = email
        for requested in email.requestedAttachments {
            let paths = try candidatePaths(requested)
            // The first reading that names a file that can be attached; else the first
            // one's problem.
            guard let path = paths.first(where: { AttachableFile(path: $0).problem == nil }) else {
                let path = paths[0]
                let problem = AttachableFile(path: path).problem ?? "cannot be read"
                throw Failure(kind: .input, message: "cannot attach \(path.visible): \(problem)")
            }
            trusted.attachments.append(.file(path))
        }
        trusted.requestedAttachments = []
        trusted.dropped.removeAll { $0.reason == .attachment }
        return trusted
    }

    /// The paths `value` may name, never empty: itself when absolute; for a `file:` URI,
    /// its path decoded (GLib's `g_filename_from_uri`), then its path as written. The
    /// URL was decoded once already, and local programs differ: a proper URI is escaped
    /// twice (`file%3A%2F%2F%2Fa%2520b`), while LibreOffice's senddoc escapes
    /// `file://` and the raw path only once (`file:///a%20b` in the URL: `file:///a b`
    /// here, and a `%` in the file's name no escape at all).
    static func candidatePaths(_ value: String) throws(Failure) -> [String] {
        if value.hasPrefix("/") { return [value] }
        if value.utf8.count > 5, value.prefix(5).lowercased() == "file:" {
            var paths: [String] = []
            if let decoded = URIs.path(fromFileURI: value) { paths.append(decoded) }
            let rest = value.dropFirst(5)
            for authority in ["///", "//localhost/"] where rest.lowercased().hasPrefix(authority) {
                let path = "/" + rest.dropFirst(authority.count)
                if !paths.contains(path) { paths.append(path) }
            }
            guard !paths.isEmpty else {
                throw Failure(kind: .input, message: "cannot attach \(value.visible): not a file on this machine")
            }
            return paths
        }
        // xdg-email makes every path absolute (readlink -f): a relative one would depend on
        // a working directory nobody knows here.
        throw Failure(kind: .input, message: "cannot attach \(value.visible): not a full path or a file: URI")
    }
}
