#if canImport(Glibc)
import Glibc
#endif

/// Standard output and standard error, written with write(2): the command line does not
/// load Foundation, and each line goes out whole, so that output and errors interleave in
/// the order they happened.
struct Output: Sendable {
    func print(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    func error(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// `text` as it is, on standard output (1) or error (2): what another program printed.
    func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                // A closed pipe or a full disk: nothing more can be said on this stream.
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
