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
