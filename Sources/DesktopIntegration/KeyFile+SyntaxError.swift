import MailtoCore
/// The message for a key file GLib could not parse. GLib's own message quotes the line
/// it stopped at ("Key file contains line “password hunter2” which is not a key-value
/// pair, group, or comment"), and that line may be a password written in another syntax:
/// the message names the line by its number instead, never by what it holds (docs/design.md
/// rule 6), since it reaches standard error, `--json`, the check and notifications.
extension KeyFile {
    /// `PATH:LINE: what is wrong`, with the line found by reading the file again the way
    /// `g_key_file_load_from_file` reads it; when no line is to blame (an `Encoding=` GLib
    /// does not take, say), GLib's message with what it quotes from the file left out.
    static func syntaxError(in path: String, glibMessage: String) -> String {
        if let bytes = try? Files.read(path), let (line, problem) = firstUnreadableLine(bytes) {
            return "\(path):\(line): \(problem)"
        }
        return tr("cannot read %@: %@", path, withoutQuotedText(glibMessage))
    }

    /// The number (from 1) of the first line GLib's parser refuses, and why; `nil` when
    /// every line reads. Follows `g_key_file_parse_line`: leading white space is skipped,
    /// then a line is blank or a `#` comment, a `[group]`, or `key=value` inside a group.
    static func firstUnreadableLine(_ bytes: [UInt8]) -> (Int, String)? {
        var inGroup = false
        for (index, rawLine) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            var line = rawLine.drop { isASCIISpace($0) }
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard let first = line.first, first != UInt8(ascii: "#") else { continue }
            if let name = groupName(line) {
                guard isGroupName(name) else { return (index + 1, tr("not a valid [group] name")) }
                inGroup = true
            } else if let equals = line.firstIndex(of: UInt8(ascii: "=")), equals != line.startIndex {
                guard inGroup else { return (index + 1, tr("a key=value pair before the first [group]")) }
                var key = line[..<equals]
                while let last = key.last, isASCIISpace(last) { key = key.dropLast() }
                guard isKeyName(Array(key)) else { return (index + 1, tr("not a valid key name")) }
            } else {
                return (index + 1, tr("not a key=value pair, a [group] or a comment"))
            }
        }
        return nil
    }

    /// The name of a `[group]` line (`g_key_file_line_is_group`: white space may follow
    /// the `]`, nothing else); `nil` when the line is not one.
    static func groupName(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard line.first == UInt8(ascii: "["), let close = line.firstIndex(of: UInt8(ascii: "]")) else { return nil }
        guard line[(close + 1)...].allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else { return nil }
        return line[(line.startIndex + 1)..<close]
    }

    /// `g_key_file_is_group_name`: not empty, no `[`, no control character.
    static func isGroupName(_ name: ArraySlice<UInt8>) -> Bool {
        !name.isEmpty && !name.contains { $0 == UInt8(ascii: "[") || $0 < 0x20 || $0 == 0x7F }
    }

    /// `g_key_file_is_key_name`: not empty, no brackets but a final `[locale]`.
    static func isKeyName(_ key: [UInt8]) -> Bool {
        guard let open = key.firstIndex(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }) else {
            return !key.isEmpty
        }
        guard open > 0, key[open] == UInt8(ascii: "["), key.last == UInt8(ascii: "]") else { return false }
        return key[(open + 1)..<(key.count - 1)].allSatisfy {
            $0 >= 0x80 || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20)
                || "-_.@".utf8.contains($0)
        }
    }

    /// `g_ascii_isspace`.
    static func isASCIISpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// GLib's message without what it quotes (“…” or "…") and without what follows a
    /// colon ("Invalid key name: KEY"): both come from the file.
    static func withoutQuotedText(_ message: String) -> String {
        var kept = ""
        var quoted = false
        for character in message.prefix(while: { $0 != ":" }) {
            switch character {
            case "“": quoted = true
            case "”": quoted = false
            case "\"": quoted.toggle()
            default: if !quoted { kept.append(character) }
            }
        }
        return kept.split(separator: " ").joined(separator: " ")
    }
}
