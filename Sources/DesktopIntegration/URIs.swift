internal import CGIO

/// URI pieces built by GLib's own escaping.
public enum URIs {
    /// Wraps `g_uri_escape_string(text, NULL, FALSE)` (transfer full): every byte outside
    /// RFC 3986's unreserved set is percent-encoded, so the result cannot end a value,
    /// start another field or close a quote in any of the syntaxes it is put into.
    public static func component(_ text: String) -> String {
        takeString(g_uri_escape_string(text, nil, 0)) ?? ""
    }

    /// `file://` and the absolute `path` with every byte escaped but unreserved ones and
    /// `/` (`g_uri_escape_string(path, "/", FALSE)`, transfer full): stricter than
    /// `g_filename_to_uri`, which leaves `,` and `'` as they are, and a comma separates
    /// attachments in Thunderbird's `attachment=` list.
    public static func file(_ path: String) -> String {
        "file://" + (takeString(g_uri_escape_string(path, "/", 0)) ?? "")
    }
}
