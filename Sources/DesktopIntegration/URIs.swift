internal import CGIO

/// URI pieces built by GLib's own escaping.
public enum URIs {
    /// Wraps `g_uri_escape_string(text, NULL, FALSE)` (transfer full): every byte outside
    /// RFC 3986's unreserved set is percent-encoded, so the result cannot end a value,
    /// start another field or close a quote in any of the syntaxes it is put into.
    public static func component(_ text: String) -> String {
        takeString(g_uri_escape_string(text, nil, 0)) ?? ""
    }

    /// Wraps `g_filename_to_uri` (transfer full): `file:///…` for an absolute path.
    public static func file(_ path: String) throws(DesktopError) -> String {
        var error: UnsafeMutablePointer<GError>?
        guard let uri = takeString(g_filename_to_uri(path, nil, &error)) else {
            throw takeError(error, .input, "cannot make a file URI of \(path)")
                ?? DesktopError(.input, "cannot make a file URI of \(path)")
        }
        return uri
    }
}
