internal import CGTK
import MainLoop
import Synchronization

/// Work off the main loop, the GNOME way: a `GTask` run in GIO's thread pool
/// (`g_task_run_in_thread`), whose callback brings the result back to the main context that
/// started it. The one way this module runs anything on another thread: a send (it blocks for
/// as long as the server takes), a setup (DNS, HTTPS, a server), a recovery file's write, and
/// the service's routing, so that the windows stay responsive meanwhile.
enum Background {
    /// Runs `work` in GIO's thread pool, then `then` with its result on the thread-default
    /// main context of the caller (the GTK main loop's): the only thread that touches a window.
    @GLibMainActor
    static func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then: @escaping @GLibMainActor (Result) -> Void) {
        let outcome = Outcome<Result>()
        let job = BackgroundJob(work: { outcome.value.withLock { $0 = work() } }, done: {
            guard let value = outcome.value.withLock({ $0 }) else { preconditionFailure("a background job ended without its result") }
            then(value)
        })
        // Retained until the task's callback takes it back on the main context.
        let data = Unmanaged.passRetained(job).toOpaque()
        guard let task = g_task_new(nil, nil, onBackgroundDone, data) else { preconditionFailure("g_task_new returned NULL") }
        g_task_set_task_data(task, data, nil)
        g_task_run_in_thread(task, onBackgroundThread)
        // The task keeps a reference of its own while it runs.
        g_object_unref(UnsafeMutableRawPointer(task))
    }

}

/// The result of one job: written by the worker before the task returns, read on the main
/// context after its callback is dispatched.
private final class Outcome<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}

/// One job's two halves, type-erased for GLib's C callbacks.
private final class BackgroundJob: Sendable {
    let work: @Sendable () -> Void
    let done: @GLibMainActor @Sendable () -> Void

    init(work: @escaping @Sendable () -> Void, done: @escaping @GLibMainActor @Sendable () -> Void) {
        self.work = work
        self.done = done
    }
}

/// A `GTaskThreadFunc`: the job's work, on a thread of GIO's pool.
private func onBackgroundThread(_ task: OpaquePointer?, _ source: gpointer?, _ data: gpointer?, _ cancellable: UnsafeMutablePointer<GCancellable>?) {
    guard let task, let data else { return }
    Unmanaged<BackgroundJob>.fromOpaque(data).takeUnretainedValue().work()
    g_task_return_boolean(task, 1)
}

/// A `GAsyncReadyCallback`: the job's end, on the main context that started it.
private func onBackgroundDone(_ source: UnsafeMutablePointer<GObject>?, _ result: OpaquePointer?, _ data: gpointer?) {
    guard let data else { return }
    let job = Unmanaged<BackgroundJob>.fromOpaque(data).takeRetainedValue()
    GLibMainActor.assumeIsolated { job.done() }
}
