/// IDNA for domains in addresses (RFC 5891 A-labels, RFC 3492 Punycode), so that a
/// message to `jörg@bücher.example` needs no SMTPUTF8 from the server.
///
/// Only the encoding step: labels are lower-cased (ASCII and the Latin/Greek/Cyrillic
/// cases Swift's `lowercased()` knows) but not NFC-normalised or checked against IDNA2008's
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
}

/// RFC 3492 §6.3, the encoder, with its parameters (§5).
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
