/// Base64 (RFC 4648 §4), for encoded-words here and for attachments in MIMEMessage.
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        encode(bytes, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the encoding of `bytes` to `out`, with padding.
    public static func encode(_ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(second == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 63)])
            out.append(third == nil ? UInt8(ascii: "=") : alphabet[Int(group & 63)])
        }
    }

    /// Decodes padded or unpadded base64; `nil` for any other byte.
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var group: UInt32 = 0
        var count = 0
        var padding = 0
        for byte in text {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            if padding > 0 { return nil }
            group = group << 6 | value
            count += 1
            if count == 4 {
                out.append(UInt8(group >> 16 & 0xFF))
                out.append(UInt8(group >> 8 & 0xFF))
                out.append(UInt8(group & 0xFF))
                group = 0
                count = 0
            }
        }
        switch count {
        case 0: break
        case 2: out.append(UInt8(group >> 4 & 0xFF))
        case 3:
            out.append(UInt8(group >> 10 & 0xFF))
            out.append(UInt8(group >> 2 & 0xFF))
        default: return nil
        }
        return out
    }
}
