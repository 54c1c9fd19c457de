internal import CGIO
public import MailtoCore

/// Everything that can go wrong on the handoff path and in registration, classified for
/// the router and the command line.
public struct DesktopError: ClassifiedError, Equatable, Sendable {
    public var kind: ErrorKind
    /// GLib's own text where there is one.
    public var message: String

    public init(_ kind: ErrorKind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// Turns the `GError *` a failed GLib call set (transfer full) into a `DesktopError`
/// saying `what` failed, and frees it.
func takeError(
    _ error: UnsafeMutablePointer<GError>?, _ kind: ErrorKind, _ what: String
) -> DesktopError {
    guard error != nil else { return DesktopError(kind, what) }
    return DesktopError(kind, "\(what): \(takeErrorMessage(error))")
}

/// The message of a `GError` (transfer full: freed here with `g_error_free`).
func takeErrorMessage(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
}

/// For a GLib file call that failed: returns (freeing the error) when the file does not
/// exist (`G_FILE_ERROR_NOENT`), else throws the error as a configuration error.
func throwUnlessMissing(_ error: UnsafeMutablePointer<GError>?, _ what: String) throws(DesktopError) {
    if let error, error.pointee.domain == g_file_error_quark(),
       error.pointee.code == G_FILE_ERROR_NOENT.rawValue {
        g_error_free(error)
        return
    }
    throw takeError(error, .configuration, what)
}

/// A C string GLib handed over (transfer full) as a Swift string; frees it.
func takeString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

/// A path GLib made (transfer full) as a `LocalPath`: its bytes kept when they are not
/// UTF-8, where `takeString` would make them U+FFFD.
func takePath(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return LocalPath.text(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
}

/// A C string GLib lent (transfer none) as a Swift string.
func borrowString(_ pointer: UnsafePointer<gchar>?) -> String? {
    pointer.map { String(cString: $0) }
}
