#if canImport(Glibc)
import Glibc
#endif

/// Wraps `write(2)`, looping through short writes and `EINTR` until every byte of `buffer`
/// is written to `descriptor`: the one write loop of the project (the outbox's files, the
/// command line's output, the sheet's recovery file and report). Returns `errno` of the
/// write that failed, `nil` when all was written.
public func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
    guard let base = buffer.baseAddress else { return nil }
    var offset = 0
    while offset < buffer.count {
        let written = write(descriptor, base + offset, buffer.count - offset)
        if written < 0, errno == EINTR { continue }
        // write(2) returns 0 only for a count of 0; a closed pipe or a full disk is an error.
        guard written > 0 else { return written < 0 ? errno : EIO }
        offset += written
    }
    return nil
}
