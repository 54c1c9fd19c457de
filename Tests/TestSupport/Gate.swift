import Foundation

/// A file this test holds an exclusive lock on (`flock(2)`), for a program it starts to
/// wait on with a shared one (`flock -s GATE true`; Python's `fcntl.flock(f, LOCK_SH)`):
/// the program waits until the test releases the gate, and not at all after. What a test
/// gives a program that must not answer, or not end, until the test says so, so that
/// whatever happened before happened without it. A lock, not a FIFO: a program that comes
/// to the gate after it was released goes through, where it would wait for ever to open a
/// FIFO no one writes to any more.
public final class Gate {
    public let path: String
    private var holder: Int32

    public init(at path: URL) throws {
        self.path = path.path
        // O_CLOEXEC: the programs tests start get no share of the lock.
        holder = open(path.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard holder >= 0 else { throw TestSupportError("open \(path.path): errno \(errno)") }
        guard flock(holder, LOCK_EX) == 0 else { throw TestSupportError("flock \(path.path): errno \(errno)") }
    }

    deinit { release() }

    /// Lets the programs waiting at the gate go on, and any that come to it later.
    public func release() {
        guard holder >= 0 else { return }
        close(holder)
        holder = -1
    }
}
