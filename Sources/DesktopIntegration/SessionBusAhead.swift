internal import CGIO

/// GIO's shared connection to the session bus, made ahead of a launch.
///
/// Every launch through GIO first gets that connection (`g_bus_get_sync`, which has no
/// deadline of its own: a bus that takes the connection and never answers would hold the
/// launch, and so the click, for ever). `start` makes it on a thread of its own as soon as a
/// run knows it will launch a program through GIO, while the rest of the handoff is being
/// prepared, and the launch `take`s it, waiting for the attempt with its own deadline. Once
/// the attempt has ended, GIO's own call returns at once: with the connection made, or
/// failing as fast as the attempt did (no bus at all). So the launch itself runs on the
/// caller's thread; a bus still not answering at the deadline would hold GIO's call as well,
/// and the launch is not made.
///
/// The launch holds what it took until GIO has its own reference, and then lets go: GIO
/// keeps its shared connection only while someone holds it, and one held for the rest of
/// the run would end the run (GDBus's exit-on-close) if the bus went away meanwhile.
final class SessionBusAhead: @unchecked Sendable {
    // @unchecked Sendable: `started`, `settled` and `made` are only read and written with
    // `lock` held; the GMutex and GCond are made once and never freed.
    static let shared = SessionBusAhead()

    /// What an attempt made, owned by the launch that took it: GIO's connection (transfer
    /// full), released when this goes, or `nil` when there is no bus to be had.
    final class Taken {
        private let connection: OpaquePointer?

        fileprivate init(_ connection: OpaquePointer?) {
            self.connection = connection
        }

        /// Whether there is a session bus: GIO launches a D-Bus-activatable program over it.
        var isConnected: Bool { connection != nil }

        deinit {
            // Loaded: only a loaded GIO makes a connection.
            if let connection, let gio = try? GIOLibrary.load() { gio.pointee.g_object_unref(UnsafeMutableRawPointer(connection)) }
        }
    }

    private let lock: UnsafeMutablePointer<GMutex>
    private let changed: UnsafeMutablePointer<GCond>
    /// An attempt is under way, or has ended and was not taken yet.
    private var started = false
    private var settled = false
    private var made: OpaquePointer?

    private init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: GMutex())
        g_mutex_init(lock)
        changed = .allocate(capacity: 1)
        changed.initialize(to: GCond())
        g_cond_init(changed)
    }

    /// Starts an attempt, unless one is under way or waiting to be taken.
    func start() {
        g_mutex_lock(lock)
        defer { g_mutex_unlock(lock) }
        guard !started else { return }
        started = true
        // No bus to wait for (an address nothing can use): settled at once, with no thread,
        // and GIO's own attempt fails as fast. A second thread is not free: every mmap and
        // mprotect of what the launch loads then costs the other core a TLB shoot-down.
        if let gio = try? GIOLibrary.load(), BusConnection.unusableAddressGiven(gio) != nil {
            settled = true
            return
        }
        // Unretained: `shared` lives as long as the process.
        g_thread_unref(g_thread_new("mailto-route-bus", connectSessionBus, Unmanaged.passUnretained(self).toOpaque()))
    }

    /// Starts an attempt if none is under way, waits at most `seconds` for it to end, and
    /// takes what it made; `nil` when the bus had not answered by then (the attempt goes on,
    /// and the next launch waits for the same one).
    func take(within seconds: Double) -> Taken? {
        start()
        let deadline = g_get_monotonic_time() + gint64(max(0, seconds) * 1_000_000)
        g_mutex_lock(lock)
        defer { g_mutex_unlock(lock) }
        while !settled {
            if g_cond_wait_until(changed, lock, deadline) == 0, !settled { return nil }
        }
        let taken = Taken(made)
        started = false
        settled = false
        made = nil
        return taken
    }

    /// The attempt, on its own thread: blocks for as long as the bus takes.
    fileprivate func connect() {
        // GIO not loadable: no launch through it will be made either.
        let connection = (try? GIOLibrary.load()).flatMap { $0.pointee.g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil) }
        g_mutex_lock(lock)
        made = connection
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
