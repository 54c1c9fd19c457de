#if canImport(Glibc)
import Glibc
#endif

/// A moment, in whole seconds since the Unix epoch (UTC), written as ISO 8601
/// (`2026-11-29T13:45:12Z`) in files and JSON.
public struct Timestamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var secondsSinceEpoch: Int64

    public init(secondsSinceEpoch: Int64) {
        self.secondsSinceEpoch = secondsSinceEpoch
    }

    /// Wraps `clock_gettime(CLOCK_REALTIME)`.
    public static func now() -> Timestamp {
        Timestamp(secondsSinceEpoch: Int64(currentTime().tv_sec))
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.secondsSinceEpoch < rhs.secondsSinceEpoch
    }

    public static func + (lhs: Timestamp, seconds: Int64) -> Timestamp {
        Timestamp(secondsSinceEpoch: lhs.secondsSinceEpoch + seconds)
    }

    public static func - (lhs: Timestamp, seconds: Int64) -> Timestamp {
        Timestamp(secondsSinceEpoch: lhs.secondsSinceEpoch - seconds)
    }

    public var description: String { iso8601 }

    /// `2026-11-29T13:45:12Z`
    public var iso8601: String {
        let (year, month, day, hour, minute, second) = fields
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))Z"
    }

    /// `2026-11-29 13:45` (UTC), for tables.
    public var shortText: String {
        let (year, month, day, hour, minute, _) = fields
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2))"
    }

    /// Reads `YYYY-MM-DDTHH:MM:SSZ`, the only form this module writes.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
              bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
        self.init(secondsSinceEpoch: days * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    // MARK: - Civil calendar (proleptic Gregorian), after Howard Hinnant's algorithms

    private var fields: (Int64, Int64, Int64, Int64, Int64, Int64) {
        let seconds = secondsSinceEpoch
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (year, month, day) = Timestamp.civilFromDays(days)
        return (year, month, day, rest / 3_600, rest % 3_600 / 60, rest % 60)
    }

    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

/// Wraps `clock_gettime(CLOCK_REALTIME)`.
func currentTime() -> timespec {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return now
}
