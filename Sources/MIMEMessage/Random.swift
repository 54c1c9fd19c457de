#if canImport(Glibc)
import Glibc
#endif

/// Random hex digits for Message-IDs and MIME boundaries, from glibc's arc4random_buf
/// (getrandom(2) underneath; the Glibc module does not export getrandom itself).
enum RandomHex {
    static func make(octets: Int) -> String {
        var bytes = [UInt8](repeating: 0, count: octets)
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { arc4random_buf(base, buffer.count) }
        }
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}

/// The Date header's value (RFC 5322 §3.3) for `seconds` since the epoch, in UTC:
/// `Sun, 06 Dec 2026 06:25:31 +0000`. Written from English tables, not with `strftime`,
/// whose `%a` and `%b` follow `LC_TIME`: GTK sets the whole process locale, and a German
/// desktop's sheet wrote `So, 06 Dez 2026` (rule 10: the wire never follows the locale).
func rfc5322Date(_ seconds: Int) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon) % 12]) \(parts.tm_year + 1900) "
        + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) +0000"
}

func currentTime() -> Int {
    Int(time(nil))
}
