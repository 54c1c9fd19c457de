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
