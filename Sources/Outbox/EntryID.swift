#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Names of outbox entries and drafts: `20261129-134512-123456-3f9a1c2b`, the UTC time to
/// the microsecond then 32 random bits, so that names sort by creation time (strictly,
/// within one process) and two processes creating one in the same microsecond still differ.
public enum EntryID {
    /// The last time used by this process, in microseconds since the epoch.
    private static let last = Mutex<Int64>(0)

    public static func make() -> String {
        let now = currentTime()
        var micros = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec / 1_000)
        micros = last.withLock { last in
            // Two ids in one microsecond, or a clock stepped back: still in order.
            last = max(micros, last + 1)
            return last
        }
        let stamp = Timestamp(secondsSinceEpoch: micros / 1_000_000).iso8601
        let digits = stamp.utf8.filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let date = String(decoding: digits[0..<8], as: UTF8.self)
        let time = String(decoding: digits[8..<14], as: UTF8.self)
        let fraction = String(micros % 1_000_000)
        let paddedFraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        return "\(date)-\(time)-\(paddedFraction)-\(randomSuffix())"
    }

    /// Eight lower-case hex digits from the system's random source.
    static func randomSuffix() -> String {
        let value = UInt32.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Whether `text` can name an entry: ASCII letters, digits and `-` only, so that an id
    /// from the command line can never reach outside its directory (`..`, `/`).
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || byte == UInt8(ascii: "-")
        }
    }
}
