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

/// Turns the `GError *` a GLib call set (transfer full) into a `DesktopError` and frees it;
/// `nil` when the call set none.
func takeError(
    _ error: UnsafeMutablePointer<GError>?, _ kind: ErrorKind, _ what: String
) -> DesktopError? {
    guard let error else { return nil }
    defer { g_error_free(error) }
    let text = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    return DesktopError(kind, "\(what): \(text)")
}

/// A C string GLib handed over (transfer full) as a Swift string; frees it.
func takeString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

/// A C string GLib lent (transfer none) as a Swift string.
func borrowString(_ pointer: UnsafePointer<gchar>?) -> String? {
    pointer.map { String(cString: $0) }
}
