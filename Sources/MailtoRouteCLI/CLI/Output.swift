#if canImport(Glibc)
import Glibc
#endif

/// Where a command prints: standard output and standard error, written with write(2) (the
/// command line does not load Foundation, and each line goes out whole, so that output and
/// errors interleave in the order they happened); in the tests, wherever `sink` says.
public struct Output: Sendable {
    /// Takes `text` for descriptor 1 (output) or 2 (errors).
    let sink: @Sendable (_ text: String, _ descriptor: Int32) -> Void

    public init(sink: @escaping @Sendable (_ text: String, _ descriptor: Int32) -> Void) {
        self.sink = sink
    }

    /// This process's standard output and error.
    public static let standard = Output { text, descriptor in
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

    func print(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    func error(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// `text` as it is, on standard output (1) or error (2): what another program printed.
    func write(_ text: String, to descriptor: Int32) {
        sink(text, descriptor)
    }
}
