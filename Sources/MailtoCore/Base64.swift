/// Base64 (RFC 4648 §4), for encoded-words here and for attachments in MIMEMessage.
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        return String(unsafeUninitializedCapacity: (input.count + 2) / 3 * 4) { out in
            input.withUnsafeBufferPointer { encode($0, into: out) }
        }
    }

    /// Encodes `bytes` with padding into `out`, which must have room for it; returns how
    /// many characters. The hot loop of a large attachment, so on raw buffers.
    public static func encode(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { table in
            var index = 0
            var written = 0
            while index + 3 <= bytes.count {
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                out[written] = table[Int(group >> 18 & 63)]
                out[written + 1] = table[Int(group >> 12 & 63)]
                out[written + 2] = table[Int(group >> 6 & 63)]
                out[written + 3] = table[Int(group & 63)]
                index += 3
                written += 4
            }
            let rest = bytes.count - index
            if rest > 0 {
                let second = rest > 1 ? UInt32(bytes[index + 1]) : 0
                let group = UInt32(bytes[index]) << 16 | second << 8
                out[written] = table[Int(group >> 18 & 63)]
                out[written + 1] = table[Int(group >> 12 & 63)]
                out[written + 2] = rest > 1 ? table[Int(group >> 6 & 63)] : UInt8(ascii: "=")
                out[written + 3] = UInt8(ascii: "=")
                written += 4
            }
            return written
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
