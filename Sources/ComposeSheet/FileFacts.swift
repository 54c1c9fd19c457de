#if canImport(Glibc)
import Glibc
#endif

/// What the sheet says about a file it lists: whether it can be attached, and its size.
/// A path that a link asked for may be anything (a directory, a device, a socket, a
/// file of someone else's), so it is looked at before it can be ticked (DESIGN.md rule 8).
struct FileFacts: Equatable {
    /// The size in bytes; `nil` when it cannot be attached.
    var size: Int?
    /// Why it cannot be attached; `nil`: it can.
    var problem: String?

    /// Looks at `path` now (`stat(2)` following links, then `access(2)` for reading).
    init(path: String) {
        var info = stat()
        guard path.hasPrefix("/") else {
            problem = "not a full path"
            return
        }
        guard stat(path, &info) == 0 else {
            problem = errno == ENOENT ? "does not exist" : "cannot be read: \(String(cString: strerror(errno)))"
            return
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            problem = info.st_mode & S_IFMT == S_IFDIR ? "is a folder, not a file" : "is not a regular file"
            return
        }
        guard access(path, R_OK) == 0 else {
            problem = "cannot be read: \(String(cString: strerror(errno)))"
            return
        }
        size = Int(info.st_size)
    }

    init(size: Int) {
        self.size = size
    }
}

/// A size as a person reads it: 512 bytes, 12.3 kB, 4.5 MB (SI units, as GNOME shows them).
func readableSize(_ bytes: Int) -> String {
    if bytes < 1000 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
    let units = ["kB", "MB", "GB", "TB"]
    var value = Double(bytes) / 1000
    var unit = 0
    while value >= 1000, unit < units.count - 1 {
        value /= 1000
        unit += 1
    }
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) \(units[unit])"
}

/// The last component of `path`.
func fileName(of path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}
