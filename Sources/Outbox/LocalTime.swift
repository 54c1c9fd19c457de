#if canImport(Glibc)
import Glibc
#endif

/// Times as the person at the terminal reads them: in the local time zone (`TZ`, else
/// `/etc/localtime`), by `localtime_r`. Files, JSON and the outcome log keep UTC
/// (`Timestamp.iso8601`): they are read by programs, and by people in other zones.
extension Timestamp {
    /// `2026-11-29 14:45`, for table columns.
    public var localShortText: String {
        let (time, _) = local
        return "\(pad(time.tm_year + 1900, 4))-\(pad(time.tm_mon + 1, 2))-\(pad(time.tm_mday, 2)) "
            + "\(pad(time.tm_hour, 2)):\(pad(time.tm_min, 2))"
    }

    /// `2026-11-29 14:45:12 CET`, where one time stands alone.
    public var localText: String {
        let (time, zone) = local
        return "\(pad(time.tm_year + 1900, 4))-\(pad(time.tm_mon + 1, 2))-\(pad(time.tm_mday, 2)) "
            + "\(pad(time.tm_hour, 2)):\(pad(time.tm_min, 2)):\(pad(time.tm_sec, 2))" + (zone.isEmpty ? "" : " \(zone)")
    }

    /// `14:45`, or `Tue 14:45` beyond today (`Di 14:45` in German), or `2026-12-24 14:45`
    /// beyond a week: the time a person is told something will happen at (a message held
    /// until then).
    public var localTimeText: String {
        let (time, _) = local
        let clock = "\(pad(time.tm_hour, 2)):\(pad(time.tm_min, 2))"
        let (today, _) = Timestamp.now().local
        if time.tm_year == today.tm_year, time.tm_yday == today.tm_yday { return clock }
        let days = (secondsSinceEpoch - Timestamp.now().secondsSinceEpoch) / 86_400
        if days >= 0, days < 6 { return Timestamp.weekdayName(time) + " " + clock }
        return localShortText
    }

    /// The moment `days` days after today's (local) date at `hour:minute:second` local
    /// time: wraps `mktime`, which settles a daylight-saving change the way the C library
    /// does. `nil` for fields out of range.
    public static func local(daysFromToday days: Int, hour: Int, minute: Int, second: Int = 0, now: Timestamp = .now()) -> Timestamp? {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        var (fields, _) = now.local
        fields.tm_mday += Int32(days)
        fields.tm_hour = Int32(hour)
        fields.tm_min = Int32(minute)
        fields.tm_sec = Int32(second)
        fields.tm_isdst = -1
        let seconds = mktime(&fields)
        guard seconds != -1 else { return nil }
        return Timestamp(secondsSinceEpoch: Int64(seconds))
    }

    /// The day's abbreviated name in the user's language (`LC_ALL`, `LC_TIME`, `LANG`), by
    /// `strftime_l` with a locale made for this call alone: the process locale is never
    /// changed (the wire's times are written without one, rule 10). The C locale's English
    /// name where the user's locale is not installed.
    /// `locale`: a locale's name, or "" for the one the environment names.
    static func weekdayName(_ time: tm, locale: String = "") -> String {
        var time = time
        let user = newlocale(LC_TIME_MASK, locale, nil) ?? newlocale(LC_TIME_MASK, "C", nil)
        defer { if let user { freelocale(user) } }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = user.map { strftime_l(&buffer, buffer.count, "%a", &time, $0) } ?? 0
        guard count > 0 else { return ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][Int(time.tm_wday) % 7] }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Wraps `localtime_r` (after `tzset`, which POSIX does not promise `localtime_r`
    /// runs); the zone's abbreviation is `tm_zone`, which points into the C library's own
    /// static zone data.
    private var local: (tm, String) {
        tzset()
        var seconds = time_t(secondsSinceEpoch)
        var fields = tm()
        guard localtime_r(&seconds, &fields) != nil else {
            // Out of the C library's range: UTC as the files have it is the honest answer.
            return (utcFields, "UTC")
        }
        return (fields, fields.tm_zone.map { String(cString: $0) } ?? "")
    }

    /// The same moment in UTC, from `gmtime_r`.
    private var utcFields: tm {
        var seconds = time_t(secondsSinceEpoch)
        var fields = tm()
        _ = gmtime_r(&seconds, &fields)
        return fields
    }
}

private func pad(_ value: Int32, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
