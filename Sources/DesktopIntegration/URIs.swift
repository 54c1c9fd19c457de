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
}
