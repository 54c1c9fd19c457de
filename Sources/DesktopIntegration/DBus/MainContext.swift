internal import CGIO

/// A `GMainContext` of our own (`g_main_context_new`, transfer full; unref'd in `deinit`).
/// While `run` pushes it as the thread default, GDBus delivers async results and signal
/// callbacks here, and only `iterate` dispatches them: nothing else the process does can
/// run them, and no wait is longer than its deadline.
final class MainContext {
    let pointer: OpaquePointer

    init() {
        pointer = g_main_context_new()
    }

    /// The process's default context (`g_main_context_default`, ref'd): the one a GTK or
    /// GApplication main loop runs.
    init(processDefault: Void) {
        pointer = g_main_context_ref(g_main_context_default())
    }

    deinit {
        g_main_context_unref(pointer)
    }

    /// Runs `body` with this context as the thread default
    /// (`g_main_context_push_thread_default` / `_pop_thread_default`).
    func run<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        g_main_context_push_thread_default(pointer)
        defer { g_main_context_pop_thread_default(pointer) }
        return try body()
    }

    /// Dispatches what arrives (`g_main_context_iteration`, blocking) until `done()` is
    /// true or `seconds` have passed; returns whether `done()` became true. A timeout
    /// source on this context wakes the blocking iteration at the deadline.
    func iterate(until done: () -> Bool, seconds: Double) -> Bool {
        let microseconds = Int(max(0, seconds) * 1_000_000)
        let deadline = g_get_monotonic_time() + microseconds
        let timer = g_timeout_source_new(UInt32(clamping: microseconds / 1000 + 1))
        g_source_set_callback(timer, wakeOnly, nil, nil)
        g_source_attach(timer, pointer)
        defer {
            g_source_destroy(timer)
            g_source_unref(timer)
        }
        while !done() {
            if g_get_monotonic_time() >= deadline { return false }
            g_main_context_iteration(pointer, 1)
        }
        return true
    }
}

/// The `GSourceFunc` of `MainContext.iterate`'s timer: it only has to wake the loop, which
/// then sees the deadline; it stays attached so that a second wake-up is never missed.
private func wakeOnly(_ userData: gpointer?) -> gboolean {
    1
}

extension MainContext {
    /// Waits at most `seconds` for `call`, started on this context with `cancellable`;
    /// returns whether it finished in time. At the deadline the call is cancelled and its
    /// callback, which GIO then dispatches at once, is waited for `grace` seconds more, so
    /// that no half-done call outlives the wait; one that still has not called back is left
    /// behind (see `AsyncCall.userData`).
    func wait(for call: AsyncCall, cancelling cancellable: Cancellable, seconds: Double, grace: Double = 1) -> Bool {
        if iterate(until: { call.finished }, seconds: seconds) { return true }
        cancellable.cancel()
        _ = iterate(until: { call.finished }, seconds: grace)
        return false
    }
}

extension Double {
    /// `5` rather than `5.0`, for messages that name a number of seconds.
    var secondsText: String {
        rounded() == self && abs(self) < 1e9 ? String(Int(self)) : String(self)
    }
}
