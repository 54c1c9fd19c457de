import CGIO
import Foundation
import MainLoop

/// GLib's default main context turned by one thread of the test process, for as long as the
/// process lives: the thread of `GLibMainActor`, whose jobs are idle sources of that context.
/// The in-process desktop tests run on it (a test isolated to the actor), and GTK's tests
/// start GTK on it (`run`): one thread owns the context, as in the program.
public final class MainLoopThread: Sendable {
    public static let shared = MainLoopThread()

    private let loop: OpaquePointerBox
    private let ended = DispatchSemaphore(value: 0)

    private init() {
        let started = DispatchSemaphore(value: 0)
        let made = OpaquePointerBox()
        let ended = self.ended
        let thread = Thread {
            // Named for a backtrace (a thread otherwise takes its creator's name).
            Thread.current.name = "main-loop"
            let loop = g_main_loop_new(nil, 0)
            made.pointer = loop
            started.signal()
            g_main_loop_run(loop)
            ended.signal()
        }
        thread.start()
        started.wait()
        loop = made
        // The loop stops before the libraries' destructors run at exit (handlers registered
        // with atexit run first, the latest first): a loop still turning while NSS shut itself
        // down crashed a test process after its last test had passed.
        atexit { MainLoopThread.shared.stop() }
    }

    /// Quits the loop and waits (5 s at most) until it has stopped turning.
    private func stop() {
        guard let pointer = loop.pointer else { return }
        g_main_loop_quit(pointer)
        _ = ended.wait(timeout: .now() + 5)
    }

    /// Runs `body` on the loop's thread, as the actor's, between two of its turns, and
    /// returns what it returned: how a test that is not isolated to the actor reaches it.
    public func run<Value>(_ body: @escaping @Sendable @GLibMainActor () -> Value) -> Value {
        let call = MainLoopCall(body)
        // Already there (a sheet let go on the loop's thread).
        if g_main_context_is_owner(nil) != 0 {
            GLibMainActor.assumeIsolated(call) { call in call.runBody() }
            return call.result as! Value
        }
        // A source of the default context rather than g_main_context_invoke, which runs the
        // function on the calling thread whenever that thread can take the context between
        // two turns of the loop: always on the loop's thread.
        let source = g_idle_source_new()
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_callback(source, onMainLoopCall, Unmanaged.passRetained(call).toOpaque(), nil)
        g_source_attach(source, nil)
        g_source_unref(source)
        call.done.wait()
        return call.result as! Value
    }
}

/// The loop, written once by its thread before `init` returns (the semaphore orders the two).
private final class OpaquePointerBox: @unchecked Sendable {
    var pointer: OpaquePointer?
}

/// One call onto the loop's thread and its result.
private final class MainLoopCall: @unchecked Sendable {
    /// Let go on the loop's thread once run: what it captured (a sheet) goes there.
    var body: (@GLibMainActor () -> Any)?
    var result: Any?
    let done = DispatchSemaphore(value: 0)

    init<Value>(_ body: @escaping @GLibMainActor () -> Value) {
        self.body = { body() }
    }

    @GLibMainActor
    func runBody() {
        result = body?()
        body = nil
    }
}

/// A `GSourceFunc` run once on the loop's thread.
private func onMainLoopCall(_ data: gpointer?) -> gboolean {
    guard let data else { return 0 }
    let call = Unmanaged<MainLoopCall>.fromOpaque(data).takeRetainedValue()
    GLibMainActor.assumeIsolated(call) { call in call.runBody() }
    call.done.signal()
    return 0
}
