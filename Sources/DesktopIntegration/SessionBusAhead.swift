internal import CGIO

/// GIO's shared connection to the session bus, made ahead of a launch.
///
/// Every launch through GIO first gets that connection (`g_bus_get_sync`, which has no
/// deadline of its own: a bus that takes the connection and never answers would hold the
/// launch, and so the click, for ever). `start` makes it on a thread of its own as soon as a
/// run is going to hand off, while the rest of the handoff is being prepared, and
/// `settled(within:)` waits for that attempt to end, with the launch's deadline. Once it
/// has ended, GIO's own call returns at once: with the connection made, or failing as fast
/// as the attempt did (no bus at all). So the launch itself runs on the caller's thread; a
/// bus still not answering at the deadline would hold GIO's call as well, and the launch is
/// not made.
///
/// One attempt a process. The connection is held for the rest of the process's life: GIO
/// keeps its shared connection only while someone holds a reference to it.
final class SessionBusAhead: @unchecked Sendable {
    // @unchecked Sendable: `started`, `settled` and `connection` are only read and written
    // with `lock` held; the GMutex and GCond are made once and never freed.
    static let shared = SessionBusAhead()

    private let lock: UnsafeMutablePointer<GMutex>
    private let changed: UnsafeMutablePointer<GCond>
    private var started = false
    private var settled = false
    /// GIO's shared connection (transfer full), `nil` when there is none to be had.
    private var connection: OpaquePointer?

    private init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: GMutex())
        g_mutex_init(lock)
        changed = .allocate(capacity: 1)
        changed.initialize(to: GCond())
        g_cond_init(changed)
    }

    /// Starts the attempt, the first time; later calls do nothing.
    func start() {
        g_mutex_lock(lock)
        defer { g_mutex_unlock(lock) }
        guard !started else { return }
        started = true
        // Unretained: `shared` lives as long as the process.
        g_thread_unref(g_thread_new("mailto-route-bus", connectSessionBus, Unmanaged.passUnretained(self).toOpaque()))
    }

    /// Starts the attempt if it was not yet, and waits at most `seconds` for it to end: true
    /// when it has (connected or not), false when the bus had not answered by then.
    func settled(within seconds: Double) -> Bool {
        start()
        let deadline = g_get_monotonic_time() + gint64(max(0, seconds) * 1_000_000)
        g_mutex_lock(lock)
        defer { g_mutex_unlock(lock) }
        while !settled {
            if g_cond_wait_until(changed, lock, deadline) == 0 { return settled }
        }
        return true
    }

    /// The attempt, on its own thread: blocks for as long as the bus takes.
    fileprivate func connect() {
        // GIO not loadable: no launch through it will be made either.
        let made = (try? GIOLibrary.load()).flatMap { $0.pointee.g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil) }
        g_mutex_lock(lock)
        connection = made
        settled = true
        g_cond_broadcast(changed)
        g_mutex_unlock(lock)
    }
}

/// The `GThreadFunc` of `SessionBusAhead.start`.
private func connectSessionBus(_ data: gpointer?) -> gpointer? {
    guard let data else { return nil }
    Unmanaged<SessionBusAhead>.fromOpaque(data).takeUnretainedValue().connect()
    return nil
}
