#if canImport(Glibc)
import Glibc
#endif

/// A POSIX thread that runs one closure, joined by its owner: the outbox's own work
/// beside a flush (deleting, recording), which must not wait for a dispatch queue's
/// thread or hold one up.
struct WorkerThread {
    private let thread: pthread_t

    /// Starts `body` on a new thread; `nil` when the system gives none.
    init?(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, workerThreadMain, context) == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            return nil
        }
        self.thread = thread
    }

    /// Waits until the closure has returned.
    func join() {
        pthread_join(thread, nil)
    }
}

private final class ThreadBody {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}

/// A thread's start routine: runs its body (retained for the thread's lifetime).
private func workerThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().body()
    return nil
}

/// `transform` of each index below `count`, in order, worked out on up to one thread per
/// processor (this one among them), each taking a run of at least `leastPerThread`
/// indices: for work that waits on files as much as it computes, where the order of the
/// results matters and not that of the work.
func concurrentMap<Element>(_ count: Int, leastPerThread: Int, _ transform: @escaping (Int) -> Element) -> [Element] {
    let processors = max(1, min(8, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    let threads = max(1, min(processors, count / max(1, leastPerThread)))
    guard threads > 1 else { return (0..<count).map(transform) }
    let results = UnsafeMutableBufferPointer<Element?>.allocate(capacity: count)
    results.initialize(repeating: nil)
    defer {
        results.deinitialize()
        results.deallocate()
    }
    // Each run writes its own part of `results`, and is joined before they are read.
    let fill = SendableRuns(results: results, transform: transform)
    let bounds = (0...threads).map { $0 * count / threads }
    let workers = (1..<threads).map { run in WorkerThread { fill.run(bounds[run]..<bounds[run + 1]) } }
    fill.run(bounds[0]..<bounds[1])
    for (run, worker) in workers.enumerated() {
        // No thread to be had: this one does that run too.
        if let worker { worker.join() } else { fill.run(bounds[run + 1]..<bounds[run + 2]) }
    }
    return results.map { $0! }
}

/// The runs of a `concurrentMap`, each filling its own indices.
private final class SendableRuns<Element>: @unchecked Sendable {
    // @unchecked Sendable: each run writes indices no other run writes; the caller reads
    // them only after joining every thread.
    let results: UnsafeMutableBufferPointer<Element?>
    let transform: (Int) -> Element

    init(results: UnsafeMutableBufferPointer<Element?>, transform: @escaping (Int) -> Element) {
        self.results = results
        self.transform = transform
    }

    func run(_ indices: Range<Int>) {
        for index in indices { results[index] = transform(index) }
    }
}

/// A mutex and its condition: the state shared by a flush's threads is read and written
/// inside `locked` only, and a thread waits inside it for another's change.
final class Monitor: @unchecked Sendable {
    // @unchecked Sendable: the pthread objects are made for sharing between threads.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside `locked`: lets the mutex go until another thread calls `wake`, then takes
    /// it again. Callers wait in a loop on their own condition.
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Inside `locked`, after a change another thread may wait for: wakes every waiter.
    func wake() {
        pthread_cond_broadcast(condition)
    }
}

extension Monitor {
    /// Tells a worker thread to end (`tell` sets its flag, inside `locked`; every waiter
    /// is woken), then waits for it; `thread` is `nil` after.
    func end(_ thread: inout WorkerThread?, telling tell: () -> Void) {
        locked {
            tell()
            wake()
        }
        thread?.join()
        thread = nil
    }
}
