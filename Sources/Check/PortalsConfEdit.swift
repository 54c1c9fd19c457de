/// The one line `mailto-route portal enable` sets in a portals.conf, and how `disable` takes
/// it out of a file someone changed since: every other byte stays as it was (comments, blank
/// lines, spacing, order, a missing last newline). Lines are read as GLib's key-file parser
/// reads them (`g_key_file_parse_line`): leading blanks skipped, `#` a comment, `[NAME]` a
/// group, else `KEY=VALUE` with blanks around the key and before the value ignored.
enum PortalsConfEdit {
    static let group = "preferred"

    /// `bytes` with `key=value` in `[preferred]`: the last line of the key there replaced (it
    /// is the one GLib keeps), else the line added after the group's last key; with the
    /// line it replaced (`nil`: none).
    static func setting(_ key: String, to value: String, in bytes: [UInt8]) -> (bytes: [UInt8], previous: [UInt8]?) {
        var lines = split(bytes)
        let line = Array("\(key)=\(value)".utf8)
        if let index = lastLine(of: key, in: lines) {
            let previous = Array(lines[index])
            lines[index] = line
            return (join(lines), previous)
        }
        guard let header = lines.firstIndex(where: { kind($0) == .group(group) }) else {
            // A file without the group (never one xdg-desktop-portal reads): the group at its end.
            var text = bytes
            if let last = text.last, last != UInt8(ascii: "\n") { text.append(UInt8(ascii: "\n")) }
            return (text + Array("[\(group)]\n".utf8) + line + [UInt8(ascii: "\n")], nil)
        }
        var anchor = header
        lines: for index in lines.indices.dropFirst(header + 1) {
            switch kind(lines[index]) {
            case .group: break lines
            case .key: anchor = index
            case .other: continue
            }
        }
        lines.insert(line, at: anchor + 1)
        return (join(lines), nil)
    }

    /// `bytes` with the last `key=value` line of `[preferred]` replaced by `previous`, or
    /// removed when there was none; unchanged when no such line is there.
    static func restoring(_ key: String, from value: String, to previous: [UInt8]?, in bytes: [UInt8]) -> [UInt8] {
        var lines = split(bytes)
        guard let index = lastLine(of: key, in: lines), case .key(_, let current) = kind(lines[index]), current == value else {
            return bytes
        }
        if let previous {
            lines[index] = previous
        } else {
            lines.remove(at: index)
        }
        return join(lines)
    }

    private enum Kind: Equatable {
        case group(String)
        case key(String, value: String)
        case other
    }

    private static func kind(_ line: [UInt8]) -> Kind {
        let text = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = text.first, first != UInt8(ascii: "#") else { return .other }
        if first == UInt8(ascii: "[") {
            guard let close = text.lastIndex(of: UInt8(ascii: "]")) else { return .other }
            return .group(String(decoding: text[text.index(after: text.startIndex)..<close], as: UTF8.self))
        }
        guard let equals = text.firstIndex(of: UInt8(ascii: "=")) else { return .other }
        let key = String(decoding: text[..<equals], as: UTF8.self).trimmingSpaces()
        let value = String(decoding: text[text.index(after: equals)...], as: UTF8.self).trimmingSpaces()
        return .key(key, value: value)
    }

    /// The index of the last line of `key` inside a `[preferred]` group.
    private static func lastLine(of key: String, in lines: [[UInt8]]) -> Int? {
        var inGroup = false
        var found: Int?
        for (index, line) in lines.enumerated() {
            switch kind(line) {
            case .group(let name): inGroup = name == group
            case .key(let name, _): if inGroup, name == key { found = index }
            case .other: break
            }
        }
        return found
    }

    /// The lines without their `\n`; the last is empty when the file ends with one.
    private static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
    }

    private static func join(_ lines: [[UInt8]]) -> [UInt8] {
        Array(lines.joined(separator: [UInt8(ascii: "\n")]))
    }
}
