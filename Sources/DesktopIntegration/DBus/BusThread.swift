internal import CGIO

/// A thread that runs a main context of its own for as long as the process lives, for the
/// desktop service's exported objects (`ServiceServer`): what GDBus answers there without
/// us (a `Properties.GetAll`) is answered even while the main thread waits, and the rest is
/// handed on to the main loop. The objects are registered on `context` (as the main thread's
/// default: `MainContext.run`) before `start`: a context that one thread runs cannot be
/// another's default.
final class BusThread {
    let context = MainContext()
    private var started = false

    /// Runs `context` on a thread of its own, once, until the process ends.
    func start() {
        guard !started else { return }
        started = true
        let loop = g_main_loop_new(context.pointer, 0)
        g_thread_unref(g_thread_new("mailto-route-objects", runLoop, UnsafeMutableRawPointer(loop)))
    }
}

/// The `GThreadFunc` of `BusThread`: runs its loop (transfer full) until the process ends.
private func runLoop(_ data: gpointer?) -> gpointer? {
    guard let data else { return nil }
    let loop = OpaquePointer(data)
    g_main_loop_run(loop)
    g_main_loop_unref(loop)
    return nil
}
