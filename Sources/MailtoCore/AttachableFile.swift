#if canImport(Glibc)
import Glibc
#endif

/// Whether the file at `path` can be attached, and its size: a regular file (links
/// followed) that this user can read, named by a full path. A path from outside may name
/// anything (a directory, a device, a socket, someone else's file), so it is looked at
/// before it is ticked in the sheet or attached for a local program (docs/design.md rule 8):
/// the one check both make.
public struct AttachableFile: Equatable, Sendable {
    /// The size in bytes; `nil` when it cannot be attached.
    public var size: Int?
    /// Why it cannot be attached; `nil`: it can.
    public var problem: String?

    /// Looks at `path` (a `LocalPath`) now (`stat(2)` following links, then `access(2)`
    /// for reading).
    public init(path: String) {
        var info = stat()
        guard LocalPath.bytes(path).first == UInt8(ascii: "/") else {
            problem = "not a full path"
            return
        }
        guard LocalPath.withCString(path, { stat($0, &info) }) == 0 else {
            problem = errno == ENOENT ? "does not exist" : "cannot be read: \(systemErrorText(errno))"
            return
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            problem = info.st_mode & S_IFMT == S_IFDIR ? "is a folder, not a file" : "is not a regular file"
            return
        }
        guard LocalPath.withCString(path, { access($0, R_OK) }) == 0 else {
            problem = "cannot be read: \(systemErrorText(errno))"
            return
        }
        size = Int(info.st_size)
    }
}
