import CGIO
import CTestProcess
import Foundation

/// A process the tests did not start as their child (a detached server, a service the bus
/// started), held by a pidfd. Its ID alone is not enough: once it has ended and init has
/// reaped it, the ID may be given to any new process or thread, and a signal sent to it
/// then ends a stranger (another test's server, or this very test process through one of
/// its threads, silently). A pidfd names the process itself.
public final class ProcessReference: @unchecked Sendable {
    // @unchecked Sendable: both properties are constants.
    public let pid: pid_t
    /// -1 when the process was gone already when looked for (or the kernel has no pidfd).
    private let descriptor: Int32

    public init(_ pid: pid_t) {
        self.pid = pid
        descriptor = mr_pidfd_open(pid)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Sends `signal` to the process, if it is still running; never to another one.
    public func signal(_ signal: Int32) {
        guard descriptor >= 0 else { return }
        _ = mr_test_pidfd_send_signal(descriptor, signal)
    }

    /// Whether it has not ended: a pidfd polls readable once its process has exited
    /// (a zombie has, its sockets closed).
    public var isAlive: Bool {
        guard descriptor >= 0 else { return false }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    /// Waits until it has ended, at most `seconds`; whether it has.
    @discardableResult
    public func waitForExit(seconds: Double) -> Bool {
        guard descriptor >= 0 else { return true }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(seconds * 1000)) == 1
    }
}
