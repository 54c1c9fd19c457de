internal import MailtoCore
/// IDNA for domains in addresses (RFC 5891 A-labels, RFC 3492 Punycode), so that a
/// message to `jörg@bücher.example` needs no SMTPUTF8 from the server.
///
/// Encoding, and decoding for a person to read (`unicodeDomain`). Labels are lower-cased
/// (ASCII and the Latin/Greek/Cyrillic cases Swift's `lowercased()` knows) but not NFC-normalised or checked against IDNA2008's
/// tables; a domain that needs that is what the user typed and the server judges it.
public enum IDNA {
    /// `domain` with every non-ASCII label as `xn--` + Punycode; ASCII domains unchanged.
    public static func asciiDomain(_ domain: String) -> String {
        guard domain.utf8.contains(where: { $0 >= 0x80 }) else { return domain }
        return domain.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            guard label.utf8.contains(where: { $0 >= 0x80 }) else { return String(label) }
            return "xn--" + Punycode.encode(Array(label.lowercased().unicodeScalars))
        }.joined(separator: ".")
    }

    /// `domain` as a person reads it: every `xn--` label decoded from Punycode
    /// (`xn--bcher-kva.example` is `bücher.example`); a label that does not decode, and every
    /// other, as it is.
    public static func unicodeDomain(_ domain: String) -> String {
        guard domain.utf8.count > 4, domain.asciiLowercased().contains("xn--") else { return domain }
        return domain.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            guard label.utf8.count > 4, label.prefix(4).asciiLowercased() == "xn--",
                  let scalars = Punycode.decode(Array(label.dropFirst(4).asciiLowercased().utf8)) else { return String(label) }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            return text
        }.joined(separator: ".")
    }
}

/// RFC 3492 §6.2 and §6.3, the decoder and the encoder, with their parameters (§5).
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
    private static let initialBias = 72, initialN = 0x80

    static func encode(_ input: [Unicode.Scalar]) -> String {
        var output: [UInt8] = input.filter(\.isASCII).map { UInt8($0.value) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < input.count {
            let m = input.map { Int($0.value) }.filter { $0 >= n }.min() ?? n
            delta += (m - n) * (handled + 1)
            n = m
            for scalar in input {
                let c = Int(scalar.value)
                if c < n { delta += 1 }
                guard c == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, handled + 1, handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The code points of a Punycode string (without its `xn--`), `nil` when it is not one
    /// (RFC 3492 §6.2: a bad digit, an overflow, or only basic code points, which no
    /// encoder writes as an A-label).
    static func decode(_ input: [UInt8]) -> [Unicode.Scalar]? {
        let delimiter = input.lastIndex(of: UInt8(ascii: "-"))
        var output: [Unicode.Scalar] = []
        for byte in input[..<(delimiter ?? 0)] {
            guard byte < 0x80 else { return nil }
            output.append(Unicode.Scalar(byte))
        }
        var position = delimiter.map { $0 + 1 } ?? 0
        guard position < input.count else { return nil }
        var n = initialN
        var i = 0
        var bias = initialBias
        while position < input.count {
            let old = i
            var w = 1
            var k = base
            while true {
                guard position < input.count, let digit = value(of: input[position]) else { return nil }
                position += 1
                let (product, overflow) = digit.multipliedReportingOverflow(by: w)
                guard !overflow, i <= Int(Int32.max) - product else { return nil }
                i += product
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if digit < t { break }
                guard w <= Int(Int32.max) / (base - t) else { return nil }
                w *= base - t
                k += base
            }
            bias = adapt(i - old, output.count + 1, old == 0)
            n += i / (output.count + 1)
            i %= output.count + 1
            guard let scalar = Unicode.Scalar(UInt32(clamping: n)), n >= initialN else { return nil }
            output.insert(scalar, at: i)
            i += 1
        }
        return output
    }

    /// A Punycode digit's value (`a`–`z` 0–25, either case; `0`–`9` 26–35).
    private static func value(of byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0")) + 26
        default: nil
        }
    }

    private static func digit(_ value: Int) -> UInt8 {
        value < 26 ? UInt8(ascii: "a") + UInt8(value) : UInt8(ascii: "0") + UInt8(value - 26)
    }

    private static func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
