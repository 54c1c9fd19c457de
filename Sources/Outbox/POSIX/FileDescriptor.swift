#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// The one owner of an open file descriptor: closed by `close()` (which reports the error,
/// for files whose contents must be durable) or, failing that, when released.
package final class FileDescriptor {
    let raw: Int32
    package let path: String
    private var isOpen = true

    package init(_ raw: Int32, path: String) {
        self.raw = raw
        self.path = path
    }

    deinit {
        if isOpen { Glibc.close(raw) }
    }

    /// Wraps `close(2)`. Also releases a `flock` held through this descriptor.
    package func close() throws {
        guard isOpen else { return }
        isOpen = false
        // Linux closes the descriptor even when close(2) fails: never retry it.
        if Glibc.close(raw) != 0 {
            throw OutboxError.system(tr("cannot close"), path: path, errno: errno)
        }
    }

    /// Wraps `write(2)`, looping until every byte is written (`MailtoCore.writeAll`).
    package func writeAll(_ bytes: [UInt8]) throws {
        if let failure = bytes.withUnsafeBytes({ MailtoCore.writeAll(raw, $0) }) {
            throw OutboxError.system(tr("cannot write"), path: path, errno: failure)
        }
    }

    /// Wraps one `write(2)` of the whole buffer: with `O_APPEND` a line lands whole or not
    /// at all, never interleaved with another writer's. A short write is an error.
    func writeOnce(_ bytes: [UInt8]) throws {
        let written = bytes.withUnsafeBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            while true {
                let written = Glibc.write(raw, base, buffer.count)
                if written < 0 && errno == EINTR { continue }
                return written
            }
        }
        if written < 0 {
            throw OutboxError.system(tr("cannot write"), path: path, errno: errno)
        }
        if written != bytes.count {
            throw OutboxError(.transient, tr("short write (%@ of %@ bytes) to", written, bytes.count), path: path)
        }
    }

    /// Wraps `read(2)` until end of file; more than `limit` bytes is an error (`EFBIG`).
    func readAll(limit: Int = .max) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            // Read into memory that is not zeroed first: a small file (a config file, the
            // recipient history) touches the one page it fills, not sixteen.
            let chunk = try [UInt8](unsafeUninitializedCapacity: 65_536) { buffer, count in
                var got = Glibc.read(raw, buffer.baseAddress, buffer.count)
                while got < 0, errno == EINTR { got = Glibc.read(raw, buffer.baseAddress, buffer.count) }
                if got < 0 { throw OutboxError.system(tr("cannot read"), path: path, errno: errno) }
                count = got
            }
            if chunk.isEmpty { return bytes }
            bytes.append(contentsOf: chunk)
            if bytes.count > limit { throw OutboxError.system(tr("cannot read"), path: path, errno: EFBIG) }
        }
    }

    /// Wraps `pread(2)`: up to `count` bytes from `offset`.
    func read(count: Int, at offset: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return pread(raw, base + filled, count - filled, off_t(offset + filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw OutboxError.system(tr("cannot read"), path: path, errno: errno)
            }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes[0..<filled])
    }

    /// Wraps `fsync(2)`.
    func sync() throws {
        while fsync(raw) != 0 {
            if errno == EINTR { continue }
            throw OutboxError.system(tr("cannot sync"), path: path, errno: errno)
        }
    }

    /// Wraps `flock(2)` with `LOCK_EX | LOCK_NB`: `false` when another open file holds it.
    /// The kernel releases the lock when the descriptor closes, also when the process is
    /// killed, so a claim never outlives its holder.
    func tryLockExclusive() throws -> Bool {
        while flock(raw, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw OutboxError.system(tr("cannot lock"), path: path, errno: errno)
        }
        return true
    }

    /// Wraps `fstat(2)`.
    func status() throws -> stat {
        var status = stat()
        if fstat(raw, &status) != 0 {
            throw OutboxError.system(tr("cannot read the status of"), path: path, errno: errno)
        }
        return status
    }
}
