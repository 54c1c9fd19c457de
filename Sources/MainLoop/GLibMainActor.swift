internal import CGIO

/// The actor of GLib's default main context: what touches a window, the application or the
/// desktop service's state is isolated to it, so that the compiler, not a comment, keeps it
/// on the one thread that runs the main loop. (The service's D-Bus objects, in
/// DesktopIntegration, which the command line links, hand each call to the loop instead:
/// an actor there would start Swift's concurrency runtime at every click.)
///
/// `MainActor` cannot be that actor: its jobs go to the main dispatch queue, which GLib's
/// loop never drains, and the loop need not run on the process's main thread (the tests run
/// GTK on a thread of their own). Here a job is an idle source of the default context
/// (`g_source_attach`, at `G_PRIORITY_DEFAULT`), so that it runs between two turns of
/// whichever thread runs the loop; and the thread that owns the context
/// (`g_main_context_is_owner`: while it runs the loop, or after `g_main_context_acquire`) is
/// isolated to the actor (SE-0424's `checkIsolated`), so that a C callback the loop runs
/// enters it synchronously with `assumeIsolated`.
@globalActor
public actor GLibMainActor {
    public static let shared = GLibMainActor()

    private static let executor = MainContextExecutor()

    public static var sharedUnownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { Self.sharedUnownedExecutor }

    /// Runs `operation` as the actor's, synchronously, from code that runs on the loop's
    /// thread but is not marked so (a C callback the loop runs): as `MainActor.assumeIsolated`,
    /// and as fatal when the calling thread does not own the default main context.
    public static func assumeIsolated<T: Sendable>(
        _ operation: @GLibMainActor () throws -> T, file: StaticString = #fileID, line: UInt = #line
    ) rethrows -> T {
        checkOwner(file: file, line: line)
        typealias Plain = () throws -> T
        return try withoutActuallyEscaping(operation) { (isolated: @escaping @GLibMainActor () throws -> T) throws -> T in
            try unsafeBitCast(isolated, to: Plain.self)()
        }
    }

    // A C callback's own arguments (GLib's pointers to its objects, which are the loop's as
    // the callback runs on it) go in as arguments of the isolated operation: captured, they
    // would be sent to the actor from the callback's nonisolated region.

    /// `assumeIsolated` with one of the callback's arguments.
    public static func assumeIsolated<A, T: Sendable>(
        _ a: A, in operation: @GLibMainActor (A) throws -> T, file: StaticString = #fileID, line: UInt = #line
    ) rethrows -> T {
        checkOwner(file: file, line: line)
        typealias Plain = (A) throws -> T
        return try withoutActuallyEscaping(operation) { (isolated: @escaping @GLibMainActor (A) throws -> T) throws -> T in
            try unsafeBitCast(isolated, to: Plain.self)(a)
        }
    }

    /// `assumeIsolated` with two of the callback's arguments.
    public static func assumeIsolated<A, B, T: Sendable>(
        _ a: A, _ b: B, in operation: @GLibMainActor (A, B) throws -> T, file: StaticString = #fileID, line: UInt = #line
    ) rethrows -> T {
        checkOwner(file: file, line: line)
        typealias Plain = (A, B) throws -> T
        return try withoutActuallyEscaping(operation) { (isolated: @escaping @GLibMainActor (A, B) throws -> T) throws -> T in
            try unsafeBitCast(isolated, to: Plain.self)(a, b)
        }
    }

    /// `assumeIsolated` with three of the callback's arguments.
    public static func assumeIsolated<A, B, C, T: Sendable>(
        _ a: A, _ b: B, _ c: C, in operation: @GLibMainActor (A, B, C) throws -> T,
        file: StaticString = #fileID, line: UInt = #line
    ) rethrows -> T {
        checkOwner(file: file, line: line)
        typealias Plain = (A, B, C) throws -> T
        return try withoutActuallyEscaping(operation) { (isolated: @escaping @GLibMainActor (A, B, C) throws -> T) throws -> T in
            try unsafeBitCast(isolated, to: Plain.self)(a, b, c)
        }
    }

    private static func checkOwner(file: StaticString, line: UInt) {
        precondition(MainContextExecutor.ownsContext, "GLib's main context entered from a thread that does not run it",
                     file: file, line: line)
    }

    /// Makes the calling thread the default main context's owner (`g_main_context_acquire`)
    /// and runs `body` with `argument` on the actor there: a program's main function, before
    /// and around `g_application_run`, which then runs the loop on the same thread. Fatal
    /// when another thread owns the context.
    public static func runHere<A, T: Sendable>(_ argument: A, in body: @GLibMainActor (A) throws -> T) rethrows -> T {
        precondition(g_main_context_acquire(nil) != 0, "another thread owns GLib's main context")
        defer { g_main_context_release(nil) }
        return try assumeIsolated(argument, in: body)
    }
}

/// `GLibMainActor`'s executor: each job an idle source of the default main context.
final class MainContextExecutor: SerialExecutor {
    static var ownsContext: Bool { g_main_context_is_owner(nil) != 0 }

    func enqueue(_ job: consuming ExecutorJob) {
        let pending = Unmanaged.passRetained(PendingJob(UnownedJob(job))).toOpaque()
        let source = g_idle_source_new()
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_callback(source, onJob, pending, nil)
        // Attaching wakes the context's owner if it is waiting in poll.
        g_source_attach(source, nil)
        g_source_unref(source)
    }

    func isIsolatingCurrentContext() -> Bool? {
        Self.ownsContext
    }

    func checkIsolated() {
        precondition(Self.ownsContext, "not on the thread that runs GLib's main context")
    }
}

/// A job on its way to the loop, through GLib's `gpointer`.
private final class PendingJob: Sendable {
    let job: UnownedJob
    init(_ job: UnownedJob) { self.job = job }
}

/// A `GSourceFunc`: one job, on the thread that runs the default main context.
private func onJob(_ data: gpointer?) -> gboolean {
    guard let data else { return 0 }
    Unmanaged<PendingJob>.fromOpaque(data).takeRetainedValue().job.runSynchronously(on: GLibMainActor.sharedUnownedExecutor)
    return 0
}
