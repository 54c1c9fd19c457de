internal import CGIO

/// The message of a `GError` (transfer full: freed here with `g_error_free`).
func takeGErrorMessage(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
}
