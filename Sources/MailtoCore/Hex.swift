/// Hexadecimal digits, for percent-encoding, Q-encoding and quoted-printable.
public enum Hex {
    /// Upper case, as RFC 3986 §2.1 recommends for percent-encoding.
    public static let upperDigits = Array("0123456789ABCDEF".utf8)

    /// The value of one hex digit of either case.
    @inline(__always)
    public static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte &- UInt8(ascii: "A") &+ 10
        default: return nil
        }
    }
}
