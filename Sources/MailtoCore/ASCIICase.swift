/// Case mapping of protocol text: A–Z and a–z only. Header field names, SMTP keywords,
/// capabilities, URL schemes and charset names are ASCII-case-insensitive by their RFCs;
/// Unicode's case mapping (`lowercased()`) would take `ſ` (U+017F) for `s` and `K` (U+212A)
/// for `k`, and C's `tolower` follows the locale (Turkish `I` is `ı`). Neither is used on
/// what goes to a server, a file or a program (docs/design.md rule 10).
///
/// Inlinable, so that each caller gets them made for its own string type: called through
/// the generic form, a module's first call had the runtime look up how `UTF8View` is a
/// collection, among every conformance the program has (118,000 instructions of a send).
extension StringProtocol {
    /// Lower-cases A–Z only.
    @inlinable
    public func asciiLowercased() -> String {
        guard utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return String(self) }
        return String(decoding: utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Upper-cases a–z only.
    @inlinable
    public func asciiUppercased() -> String {
        guard utf8.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else { return String(self) }
        return String(decoding: utf8.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") ? $0 & ~0x20 : $0 }, as: UTF8.self)
    }

    /// Whether this text starts with `prefix`, A–Z and a–z matched either way.
    @inlinable
    public func hasASCIICaseInsensitivePrefix(_ prefix: String) -> Bool {
        utf8.count >= prefix.utf8.count && String(decoding: utf8.prefix(prefix.utf8.count), as: UTF8.self).asciiLowercased()
            == prefix.asciiLowercased()
    }
}
