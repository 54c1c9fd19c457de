/// Reads JSON into `JSON`: what the outbox writes and reads back (entry metadata,
/// outcome-log lines), and the browsers' own settings that `check` reads (Firefox's
/// `handlers.json`, Chromium's `Preferences`). Whole numbers are `.int`; a number with a
/// fraction or an exponent, or one too large for an `Int`, is `.number` (Chromium's
/// `Preferences` holds such numbers; nothing of this project writes them). Anything that is
/// not RFC 8259 JSON, or nests deeper than 32, is `nil`: the caller names the file as
/// unreadable, never guesses.
package struct JSONReader {
    private let bytes: [UInt8]
    private var index = 0

    package static func parse(_ bytes: [UInt8]) -> JSON? {
        var reader = JSONReader(bytes: bytes)
        guard let value = reader.value() else { return nil }
        reader.skipWhitespace()
        return reader.index == bytes.count ? value : nil
    }

    package static func parse<S: Collection>(_ bytes: S) -> JSON? where S.Element == UInt8 {
        parse(Array(bytes))
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // A flush lists thousands of entries before it sends one: the reader allocates only
    // for what it returns (no array per literal compared, one string per string read).

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ literal: StaticString) -> Bool {
        let literalBytes = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard index + literalBytes.count <= bytes.count,
              bytes[index..<index + literalBytes.count].elementsEqual(literalBytes)
        else { return false }
        index += literalBytes.count
        return true
    }

    private mutating func value(depth: Int = 0) -> JSON? {
        guard depth < 32 else { return nil }
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [(String, JSON)] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard let key = string() else { return nil }
                skipWhitespace()
                guard consume(":"), let member = value(depth: depth + 1) else { return nil }
                members.append((key, member))
                skipWhitespace()
                if consume(",") { continue }
                guard consume("}") else { return nil }
                return .object(members)
            }
        case UInt8(ascii: "["):
            index += 1
            var elements: [JSON] = []
            skipWhitespace()
            if consume("]") { return .array(elements) }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
                if consume(",") { continue }
                guard consume("]") else { return nil }
                return .array(elements)
            }
        case UInt8(ascii: "\""):
            return string().map(JSON.string)
        case UInt8(ascii: "t"):
            return consume("true") ? .bool(true) : nil
        case UInt8(ascii: "f"):
            return consume("false") ? .bool(false) : nil
        case UInt8(ascii: "n"):
            return consume("null") ? .null : nil
        default:
            return number()
        }
    }

    /// A whole number as `.int` when it fits; else, and with a fraction or an exponent
    /// (RFC 8259 §6: `-? int frac? exp?`), the nearest `Double`.
    private mutating func number() -> JSON? {
        let start = index
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var value = 0
        var fits = true
        let digits = self.digits { digit in
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(digit))
            if overflow1 || overflow2 { fits = false }
            value = sum
        }
        guard digits > 0 else { return nil }
        var whole = fits
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard self.digits({ _ in }) > 0 else { return nil }
            whole = false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard self.digits({ _ in }) > 0 else { return nil }
            whole = false
        }
        if whole { return .int(negative ? -value : value) }
        return Double(String(decoding: bytes[start..<index], as: UTF8.self)).map(JSON.number)
    }

    /// Consumes a run of ASCII digits, each given to `each` as its value; how many there were.
    private mutating func digits(_ each: (UInt8) -> Void) -> Int {
        var count = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            each(bytes[index] - UInt8(ascii: "0"))
            count += 1
            index += 1
        }
        return count
    }

    private mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        // Most strings have no escape: taken whole, up to their closing quote.
        let start = index
        while index < bytes.count, bytes[index] >= 0x20, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: bytes[start..<index - 1], as: UTF8.self)
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard consume("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    return nil
                }
            case 0x00..<0x20:
                return nil
            default:
                out.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = Hex.value(byte) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }
}

extension JSON {
    /// The member named `key` of an object; `nil` for anything else.
    package subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.0 == key })?.1
    }

    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    package var arrayValue: [JSON]? {
        if case .array(let values) = self { return values }
        return nil
    }

    package var stringsValue: [String]? {
        guard case .array(let values) = self else { return nil }
        let strings = values.compactMap(\.stringValue)
        return strings.count == values.count ? strings : nil
    }
}

extension Failure {
    /// Reads back what `Failure.json` wrote (an outbox entry's last error, a report's
    /// error): `nil` without a known kind and a message.
    package init?(json: JSON) {
        guard let kind = json["kind"]?.stringValue.flatMap(ErrorKind.init(rawValue:)), let message = json["message"]?.stringValue
        else { return nil }
        self.init(kind: kind, message: message, cause: json["cause"]?.stringValue.flatMap(FailureCause.init(rawValue:)),
                  detail: json["detail"]?.stringValue)
    }
}
