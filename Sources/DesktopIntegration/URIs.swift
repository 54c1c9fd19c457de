internal import CGIO
import MailtoCore

/// URI pieces for the command lines and pages a handoff opens.
public enum URIs {
    /// Every byte outside RFC 3986's unreserved set percent-encoded, so the result cannot
    /// end a value, start another field or close a quote in any of the syntaxes it is put
    /// into. Not `g_uri_escape_string`: it takes a C string, and would end the value at a
    /// NUL without a word.
    public static func component(_ text: String) -> String {
        PercentEncoding.unreservedOnly(text)
    }

    /// `file://` and the absolute `path` with every byte escaped but unreserved ones and
    /// `/` (`g_uri_escape_string(path, "/", FALSE)`, transfer full): stricter than
    /// `g_filename_to_uri`, which leaves `,` and `'` as they are, and a comma separates
    /// attachments in Thunderbird's `attachment=` list.
    public static func file(_ path: String) -> String {
        "file://" + (takeString(g_uri_escape_string(path, "/", 0)) ?? "")
    }

    /// The local path a `file:` URI names, as a `LocalPath` (`g_filename_from_uri`,
    /// transfer full, and its hostname, transfer full): `nil` for a URI that is no `file:`
    /// one, names another host than this one (`localhost` or none), or holds an escape that
    /// does not decode (GLib refuses an escaped NUL or `/`).
    public static func path(fromFileURI uri: String) -> String? {
        guard !uri.utf8.contains(0) else { return nil }
        var hostname: UnsafeMutablePointer<gchar>?
        let path = takePath(g_filename_from_uri(uri, &hostname, nil))
        let host = takeString(hostname)
        guard let path, host == nil || host == "localhost" else { return nil }
        return path
    }
}
