/// How `outbox watch` paces its flushes after one that failed as a whole: the outbox could
/// not record an attempt or its outcome (a read-only or full disk: docs/design.md rule 9), or
/// there was no account to send with. No message's metadata holds such a failure (it could
/// not be written, or nothing was tried), so the watcher keeps this back-off itself, in
/// memory: 1 minute after the first such flush, then 2, 4, 8… (the `RetryPolicy`'s
/// schedule), at most `maximumDelay`, so that a disk freed or an account written is seen
/// within the hour. A flush that goes through ends it.
public struct FlushBackoff: Equatable, Sendable {
    public var policy: RetryPolicy
    /// Flushes that failed as a whole, one after the other.
    public private(set) var failures = 0
    /// No flush before this moment; `nil`: none is held back.
    public private(set) var notBefore: Timestamp?

    public static let maximumDelay: Int64 = 3_600

    public init(policy: RetryPolicy = .standard) {
        self.policy = policy
    }

    /// Takes note of a flush made at `now`.
    public mutating func record(flushFailed: Bool, now: Timestamp = .now()) {
        guard flushFailed else {
            failures = 0
            notBefore = nil
            return
        }
        failures += 1
        notBefore = now + min(policy.delay(afterAttempts: failures), FlushBackoff.maximumDelay)
    }

    /// Whether a flush may be made at `now`.
    public func allowsFlush(now: Timestamp = .now()) -> Bool {
        notBefore.map { now >= $0 } ?? true
    }

    /// How long to sleep before the next flush: until the earlier of `nextAttempt` (the
    /// earliest next attempt of what is queued) and `longest` seconds, but not before the
    /// back-off allows one; at least 1 s.
    public func secondsToWait(nextAttempt: Timestamp?, now: Timestamp = .now(), longest: Int64) -> Int64 {
        var until = min(nextAttempt ?? now + longest, now + longest)
        if let notBefore { until = max(until, min(notBefore, now + longest)) }
        return max(until.secondsSinceEpoch - now.secondsSinceEpoch, 1)
    }
}
