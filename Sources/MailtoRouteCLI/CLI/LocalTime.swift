#if canImport(Glibc)
import Glibc
#endif
import MailtoRoute

/// Times as the person at the terminal reads them: in the local time zone (`TZ`, else
/// `/etc/localtime`), by `localtime_r`. Files, JSON and the outcome log keep UTC
/// (`Timestamp.iso8601`): they are read by programs, and by people in other zones.
extension Timestamp {
    /// `2026-11-29 14:45`, for table columns.
    var localShortText: String {
        let (time, _) = local
        return "\(pad(time.tm_year + 1900, 4))-\(pad(time.tm_mon + 1, 2))-\(pad(time.tm_mday, 2)) "
            + "\(pad(time.tm_hour, 2)):\(pad(time.tm_min, 2))"
    }

    /// `2026-11-29 14:45:12 CET`, where one time stands alone.
    var localText: String {
        let (time, zone) = local
        return "\(pad(time.tm_year + 1900, 4))-\(pad(time.tm_mon + 1, 2))-\(pad(time.tm_mday, 2)) "
            + "\(pad(time.tm_hour, 2)):\(pad(time.tm_min, 2)):\(pad(time.tm_sec, 2))" + (zone.isEmpty ? "" : " \(zone)")
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
