import Foundation

/// Whether this process may mount a tmpfs (CAP_SYS_ADMIN: root on the build machines),
/// for tests of a full or read-only file system, the real thing rather than a fault
/// injected into the system calls.
public let canMountTmpfs: Bool = {
    let point = FileManager.default.temporaryDirectory.appendingPathComponent("mount-probe-\(UUID().uuidString)").path
    guard (try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)) != nil else { return false }
    defer { try? FileManager.default.removeItem(atPath: point) }
    guard (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", point]))?.status == 0 else { return false }
    _ = try? run("/bin/umount", [point])
    return true
}()

/// A tmpfs of `size` (`64k`, `1m`) with `mode` mounted at `path` (created if need be)
/// for the duration of `body`; unmounted also when `body` throws.
public func withTmpfs(at path: String, size: String, mode: String = "0755", _ body: () throws -> Void) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=\(mode)", "tmpfs", path])
    guard mounted.status == 0 else { throw TestSupportError("cannot mount a tmpfs at \(path): \(mounted)") }
    defer { _ = try? run("/bin/umount", ["-l", path]) }
    try body()
}
