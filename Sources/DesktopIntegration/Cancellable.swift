internal import CGIO

/// The one Swift owner of a `GCancellable` (`g_cancellable_new`, transfer full), unref'd
/// in `deinit`: what gives an asynchronous GIO or libsecret call its deadline
/// (`MainContext.wait`).
final class Cancellable {
    /// `nil` only if GLib could not make one (it aborts on out of memory first); GIO takes
    /// a `NULL` cancellable as "not cancellable".
    let pointer: UnsafeMutablePointer<GCancellable>?
    private let gio: UnsafePointer<mr_gio_api>

    init(gio: UnsafePointer<mr_gio_api>) {
        self.gio = gio
        pointer = gio.pointee.g_cancellable_new()
    }

    deinit {
        if let pointer { gio.pointee.g_object_unref(UnsafeMutableRawPointer(pointer)) }
    }

    /// Wraps `g_cancellable_cancel`: the call it was passed to ends with
    /// `G_IO_ERROR_CANCELLED`, its callback dispatched on the call's main context.
    func cancel() {
        gio.pointee.g_cancellable_cancel(pointer)
    }
}
