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

/// The Date header's value (RFC 5322 §3.3) for `seconds` since the epoch, in UTC, formatted
/// with strftime in the C locale (the process never calls setlocale).
func rfc5322Date(_ seconds: Int) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S +0000", &parts)
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func currentTime() -> Int {
    Int(time(nil))
}
