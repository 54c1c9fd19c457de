#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`), for deadlines and durations:
/// it never jumps when the wall clock is set.
public enum MonotonicClock {
    public static var seconds: Double {
        let time = now()
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    public static var milliseconds: Int {
        let time = now()
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }

    private static func now() -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time
    }
}
