#if canImport(Glibc)
import Glibc
#endif

/// The text of an `errno` value, as `strerror_r(3)` gives it: the one way every module
/// turns a failed system call into words.
public func systemErrorText(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    // Swift sees the XSI strerror_r: 0 and the text in the buffer, or an error number.
    guard strerror_r(code, &buffer, buffer.count) == 0 else { return "errno \(code)" }
    return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
