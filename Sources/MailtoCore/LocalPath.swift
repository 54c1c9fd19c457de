#if canImport(Glibc)
import Glibc
#endif

/// A local file's path as mailto-route carries it in text (a `String`, an argv word, a
/// D-Bus string, JSON): the path itself when its bytes are UTF-8, as nearly all are; else
/// its `file://` URI with every byte but RFC 3986's unreserved ones and `/`
/// percent-encoded (`file:///home/ann/caf%E9%20menu.txt`), which keeps the exact bytes of
/// a name an old archive or a Windows share left in Latin-1 through every boundary that
/// takes only text, where a `String` would have turned the byte into U+FFFD and named
/// another file. An absolute path starts with `/`, so the two forms never meet.
///
/// The file is opened by its `bytes`, and shown as GLib shows such a name
/// (`g_filename_display_name`): each byte that is not UTF-8 as U+FFFD.
public enum LocalPath {
    static let uriPrefix = "file://"

    /// The text for a path given as bytes.
    public static func text(_ bytes: some Collection<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var out = Array(uriPrefix.utf8)
        PercentEncoding.encode(bytes, into: &out) { PercentEncoding.isUnreserved($0) || $0 == UInt8(ascii: "/") }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` (made by `text(_:)`) stands for: what is opened.
    public static func bytes(_ text: String) -> [UInt8] {
        guard isEscaped(text) else { return Array(text.utf8) }
        return PercentEncoding.decodeLeniently(text.utf8.dropFirst(uriPrefix.utf8.count))
    }

    /// Whether `text` is the `file://` form of a path that is not UTF-8.
    public static func isEscaped(_ text: String) -> Bool {
        text.hasPrefix(uriPrefix)
    }

    /// The path as a person reads it: each byte that is not UTF-8 as U+FFFD.
    public static func display(_ text: String) -> String {
        isEscaped(text) ? String(decoding: bytes(text), as: UTF8.self) : text
    }

    /// The last component, shown as `display` shows it: the file's name.
    public static func displayName(_ text: String) -> String {
        let path = display(text)
        return path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    /// Calls `body` with the path's bytes as a C string, for the system call that opens or
    /// looks at the file.
    public static func withCString<Result>(_ text: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        guard isEscaped(text) else { return try text.withCString(body) }
        return try (bytes(text) + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { characters in
                // Never empty: it holds at least the terminating NUL.
                guard let start = characters.baseAddress else { preconditionFailure("an empty C string buffer") }
                return try body(start)
            }
        }
    }
}
