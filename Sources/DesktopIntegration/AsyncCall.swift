internal import CGIO

/// One GIO asynchronous call, waited for by iterating a main context until `finished`:
/// `complete` runs in the call's `GAsyncReadyCallback` with the source object and the
/// result (where the `_finish` function is called), then `finished` is set.
final class AsyncCall {
    private(set) var finished = false
    private let complete: (UnsafeMutablePointer<GObject>?, OpaquePointer?) -> Void

    init(complete: @escaping (UnsafeMutablePointer<GObject>?, OpaquePointer?) -> Void) {
        self.complete = complete
    }

    /// The `user_data` of the call: it keeps this object alive until the callback has run.
    /// If the caller gives up first (a deadline), the callback may never run, and the small
    /// object is left behind on purpose.
    var userData: gpointer { Unmanaged.passRetained(self).toOpaque() }

    /// The `GAsyncReadyCallback` to pass with `userData`: a top-level function, as C needs.
    static let ready: GAsyncReadyCallback = { source, result, userData in
        guard let userData else { return }
        let call = Unmanaged<AsyncCall>.fromOpaque(userData).takeRetainedValue()
        call.complete(source, result)
        call.finished = true
    }
}
