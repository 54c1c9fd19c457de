#if canImport(Glibc)
import Glibc
#endif

/// Names of outbox entries and drafts: `20261129-134512-123-3f9a1c2b`, the UTC time to the
/// millisecond then 32 random bits, so that names sort by creation time and two processes
/// creating one in the same millisecond still differ.
public enum EntryID {
    public static func make() -> String {
        let now = currentTime()
        let stamp = Timestamp(secondsSinceEpoch: Int64(now.tv_sec)).iso8601
        let digits = stamp.utf8.filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let date = String(decoding: digits[0..<8], as: UTF8.self)
        let time = String(decoding: digits[8..<14], as: UTF8.self)
        let millis = String(now.tv_nsec / 1_000_000)
        let paddedMillis = String(repeating: "0", count: 3 - millis.count) + millis
        return "\(date)-\(time)-\(paddedMillis)-\(randomSuffix())"
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

    /// The creation time an id starts with.
    static func timestamp(of id: String) -> Timestamp? {
        let bytes = Array(id.utf8)
        guard bytes.count >= 15 else { return nil }
        let d = bytes
        let text = String(decoding: d[0..<4], as: UTF8.self) + "-" + String(decoding: d[4..<6], as: UTF8.self) + "-"
            + String(decoding: d[6..<8], as: UTF8.self) + "T" + String(decoding: d[9..<11], as: UTF8.self) + ":"
            + String(decoding: d[11..<13], as: UTF8.self) + ":" + String(decoding: d[13..<15], as: UTF8.self) + "Z"
        return Timestamp(iso8601: text)
    }
}
