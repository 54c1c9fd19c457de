/// When a queued message is tried again, and when the outbox gives up on it
/// (back off from 1 minute, doubling, to 6 hours; give up after 5 days).
public struct RetryPolicy: Equatable, Sendable {
    /// The wait after the first failed attempt, in seconds.
    public var initialDelay: Int64
    /// The longest wait between two attempts, in seconds.
    public var maximumDelay: Int64
    /// How long after it was queued a message that still fails moves to `failed/`.
    public var lifetime: Int64

    public static let standard = RetryPolicy(initialDelay: 60, maximumDelay: 6 * 3_600, lifetime: 5 * 86_400)

    public init(initialDelay: Int64, maximumDelay: Int64, lifetime: Int64) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.lifetime = lifetime
    }

    /// The wait after `attempts` failed attempts (1 → 1 min, 2 → 2 min, 3 → 4 min, …, 6 h).
    public func delay(afterAttempts attempts: Int) -> Int64 {
        guard attempts > 0 else { return 0 }
        var delay = initialDelay
        for _ in 1..<attempts {
            delay *= 2
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }
}
