import Foundation

/// How long a test waits for a postcondition before it fails: an upper bound for a loaded
/// machine (two cores, several test processes side by side), never a statement of speed. A
/// passing test waits only as long as the postcondition takes to hold.
public let patience: Double = 60

/// Returns once `condition` holds, asking it again every `interval` seconds; throws, naming
/// `what` was waited for, when `timeout` seconds pass first, so that a wait that ran out
/// fails its test rather than letting it go on as if the postcondition held. `condition` is
/// asked at least once (with a `timeout` of 0, exactly once), and what it throws ends the
/// wait. The tests' one polling loop: a wait is for an event or a postcondition, never a
/// fixed time; where an event can be waited on directly (a process's exit, a pipe), it is.
public func waitUntil(
    _ what: @autoclosure () -> String, timeout: Double = patience, every interval: Double = 0.02,
    _ condition: () throws -> Bool
) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else {
            let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
            throw TestSupportError("gave up after \(seconds) s waiting until \(what())")
        }
        usleep(UInt32(interval * 1_000_000))
    }
}

/// Sleeps a random moment of at most `seconds`. Only for tests that interleave on purpose at
/// random points (a kill, a second sender): the moment is what the test varies; nothing is
/// waited for, and no result depends on how long it was.
public func jitter(upTo seconds: Double) {
    usleep(UInt32.random(in: 0...UInt32(seconds * 1_000_000)))
}
