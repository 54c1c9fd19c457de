#if canImport(Glibc)
import Glibc
#endif
import MailtoRoute

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
        // A closed pipe or a full disk: nothing more can be said on this stream.
        _ = text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) }
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
