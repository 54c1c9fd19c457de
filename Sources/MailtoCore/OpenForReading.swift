#if canImport(Glibc)
import Glibc
#endif

/// `open(2)`'s `O_NOATIME`, which Swift's Glibc module leaves out (glibc declares it
/// under `_GNU_SOURCE` only): the file's access time is not updated. Its value is that
/// of every architecture Swift builds for on Linux (asm-generic's `01000000`). Only for
/// files the process owns; elsewhere `open` fails with `EPERM`.
package let O_NOATIME: Int32 = 0o1000000

/// Opens `path` (a `LocalPath` text) for reading, close-on-exec, without updating its
/// access time where the file is the caller's (`O_NOATIME`; a plain open when `EPERM` says
/// it is another user's). Under `relatime` the first read after a file was written writes
/// its inode back: a flush that reads 10,000 stored messages would give its next sync
/// 10,000 inodes to write. Returns the descriptor, or -1 with `errno` set; `EINTR` is
/// retried here.
package func openForReading(_ path: String) -> Int32 {
    LocalPath.withCString(path) { name in
        var flags = O_RDONLY | O_CLOEXEC | O_NOATIME
        while true {
            let descriptor = open(name, flags)
            if descriptor >= 0 { return descriptor }
            switch errno {
            case EINTR: continue
            case EPERM where flags & O_NOATIME != 0: flags &= ~O_NOATIME
            default: return -1
            }
        }
    }
}
