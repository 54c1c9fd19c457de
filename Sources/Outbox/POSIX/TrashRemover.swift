#if canImport(Glibc)
import Glibc
#endif

/// Deletes the directories a flush took out of the outbox, on a thread of its own, while
/// the flush goes on sending: on ext4 an `unlink` of a file with data costs about as much
/// as submitting a small message on loopback, and nothing waits for these deletions (a
/// directory in `.trash/` is invisible to every listing). Each stays locked by its claim's
/// descriptor until it is gone, so that another process deletes only those whose remover
/// died (`Outbox.removeDeadTrash`). The one owner of its `pthread_t`, joined by `finish`.
final class TrashRemover: @unchecked Sendable {
    /// Allocated, not stored properties: a pthread object must not move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Guarded by `mutex`.
    private var pending: [TakenOut] = []
    private var finishing = false
    private var thread: pthread_t?

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        var created = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        if pthread_create(&created, nil, trashRemoverMain, context) == 0 {
            thread = created
        } else {
            // No thread: `add` deletes at once instead.
            Unmanaged<TrashRemover>.fromOpaque(context).release()
        }
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Queues directories for deletion (after the removal that made them was synced).
    func add(_ taken: [TakenOut]) {
        guard thread != nil else {
            for item in taken { delete(item) }
            return
        }
        pthread_mutex_lock(mutex)
        pending += taken
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Deletes what is left and waits for the thread to end.
    func finish() {
        guard let thread else { return }
        pthread_mutex_lock(mutex)
        finishing = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        pthread_join(thread, nil)
        self.thread = nil
    }

    fileprivate func run() {
        while true {
            pthread_mutex_lock(mutex)
            while pending.isEmpty, !finishing { pthread_cond_wait(condition, mutex) }
            let batch = pending
            pending = []
            let done = finishing && batch.isEmpty
            pthread_mutex_unlock(mutex)
            if done { return }
            for item in batch { delete(item) }
        }
    }

    /// Deletes one directory, then lets its lock go. One that cannot be deleted now (a
    /// read-only disk) is left, unlocked, to the next writer.
    private func delete(_ item: TakenOut) {
        try? removeTree(item.path)
        try? item.lock.close()
    }
}

/// The thread's start routine: recovers its owner (retained for the thread's lifetime).
private func trashRemoverMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let remover = Unmanaged<TrashRemover>.fromOpaque(context).takeRetainedValue()
    remover.run()
    return nil
}
