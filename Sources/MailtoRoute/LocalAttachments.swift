import DesktopIntegration

/// The files a `mailto:` URL names (`attach=`, `attachment=`) that a local program handed
/// over, as `send --attach` does (docs/design.md rule 8): those the caller's `AttachmentTrust`
/// covers (`open --local`; through xdg-email, what `XDGEmailCaller` can prove) become
/// trusted `attachments`; the rest stay in `requestedAttachments`, never attached on their
/// own.
public enum LocalAttachments {
    /// `email` with each requested file that `trust` covers attached (an absolute path or
    /// a `file:` URI of this machine), and the `attach` entries of `dropped` gone once
    /// every one was taken. A trusted file that does not exist, or is no regular file this
    /// user can read, is an `input` error naming it: a local program's attachment is never
    /// dropped silently (rule 2). A file `trust` does not cover stays requested, as the full
    /// path it names when it is a `file:` URI, so that the sheet shows where it is.
    public static func trusting(_ email: EmailData, _ trust: AttachmentTrust) throws(Failure) -> EmailData {
        var result = email
        result.requestedAttachments = []
        for requested in email.requestedAttachments {
            var readings = Result { () throws(Failure) in try candidatePaths(requested) }
            if !trust.trusts((try? readings.get()) ?? []), let whole = trust.trustedPath(cutTo: requested) {
                // The name xdg-email cut short at a byte that is not UTF-8: the file its
                // own --attach named, whole.
                readings = .success([whole])
            }
            let paths = (try? readings.get()) ?? []
            // The first reading that names a file that can be attached: what a tick
            // attaches, or what is attached now.
            let attachable = paths.first { AttachableFile(path: $0).problem == nil }
            guard trust.trusts(paths) else {
                result.requestedAttachments.append(attachable ?? paths.first ?? requested)
                continue
            }
            // A trusted value that names no file of this machine, or none that can be
            // attached, is the error: the first reading's problem.
            let checked = try readings.get()
            guard let path = attachable else {
                let problem = AttachableFile(path: checked[0]).problem ?? tr("cannot be read")
                throw Failure(kind: .input, message: tr("cannot attach %@: %@", LocalPath.display(checked[0]).visible, problem))
            }
            result.attachments.append(.file(path))
        }
        if result.requestedAttachments.isEmpty { result.dropped.removeAll { $0.reason == .attachment } }
        return result
    }

    /// The paths `value` may name (each a `LocalPath`), never empty: itself when absolute;
    /// for a `file:` URI, its path decoded (GLib's `g_filename_from_uri`), then its path as
    /// written. The URL was decoded once already, and local programs differ: a proper URI
    /// is escaped twice (`file%3A%2F%2F%2Fa%2520b`), while LibreOffice's senddoc escapes
    /// `file://` and the raw path only once (`file:///a%20b` in the URL: `file:///a b`
    /// here, and a `%` in the file's name no escape at all).
    static func candidatePaths(_ value: String) throws(Failure) -> [String] {
        if value.hasPrefix("/") { return [value] }
        if value.hasASCIICaseInsensitivePrefix("file:") {
            var paths: [String] = []
            if let decoded = URIs.path(fromFileURI: value) { paths.append(decoded) }
            let rest = value.dropFirst(5)
            for authority in ["///", "//localhost/"] where rest.hasASCIICaseInsensitivePrefix(authority) {
                let path = "/" + rest.dropFirst(authority.count)
                if !paths.contains(path) { paths.append(path) }
            }
            guard !paths.isEmpty else {
                throw Failure(kind: .input, message: tr("cannot attach %@: not a file on this machine", value.visible))
            }
            return paths
        }
        // xdg-email makes every path absolute (readlink -f): a relative one would depend on
        // a working directory nobody knows here.
        throw Failure(kind: .input, message: tr("cannot attach %@: not a full path or a file: URI", value.visible))
    }
}
