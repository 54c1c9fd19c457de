import MailtoCore

/// What the sheet says about a file it lists: whether it can be attached, and its size
/// (MailtoCore's `AttachableFile`, the check `open --local` makes too).
struct FileFacts: Equatable {
    /// The size in bytes; `nil` when it cannot be attached.
    var size: Int?
    /// Why it cannot be attached; `nil`: it can.
    var problem: String?

    /// Looks at `path` now.
    init(path: String) {
        let file = AttachableFile(path: path)
        size = file.size
        problem = file.problem
    }

    init(size: Int) {
        self.size = size
    }
}

/// A size as a person reads it: 512 bytes, 12.3 kB, 4.5 MB (SI units, as GNOME shows them).
func readableSize(_ bytes: Int) -> String {
    if bytes < 1000 { return bytes == 1 ? tr("1 byte") : tr("%@ bytes", String(bytes)) }
    let units = ["kB", "MB", "GB", "TB"]
    var value = Double(bytes) / 1000
    var unit = 0
    while value >= 1000, unit < units.count - 1 {
        value /= 1000
        unit += 1
    }
    let tenths = Int((value * 10).rounded())
    // The decimal separator is the language's ("4,5 MB" in German).
    return tr("%@.%@ %@", String(tenths / 10), String(tenths % 10), units[unit])
}

/// The last component of `path`.
func fileName(of path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}
