/// Percent-encoding (RFC 3986 §2.1), upper-case hex.
public enum PercentEncoding {
    /// Appends `bytes` to `out`, each byte `keeping` refuses written as `%XX`.
    @inline(__always)
    public static func encode(_ bytes: some Sequence<UInt8>, into out: inout [UInt8], keeping: (UInt8) -> Bool) {
        for byte in bytes {
            if keeping(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(Hex.upperDigits[Int(byte >> 4)])
                out.append(Hex.upperDigits[Int(byte & 0x0F)])
            }
        }
    }

    /// `text` with every byte outside RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`)
    /// encoded: nothing left in it can end a value or start another in any syntax.
    public static func unreservedOnly(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        encode(text.utf8, into: &out, keeping: isUnreserved)
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` with each `%XX` decoded to its byte; a `%` not followed by two hex digits is
    /// kept as it is.
    public static func decodeLeniently(_ text: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(text)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = Hex.value(bytes[index + 1]), let low = Hex.value(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
