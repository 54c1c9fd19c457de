#if canImport(Glibc)
import Glibc
#endif
internal import MailtoCore

/// The message as a byte stream, produced in chunks as it is read (libcurl's
/// `CURLOPT_READFUNCTION` pulls it): an attachment is read from its file and base64-encoded
/// a chunk at a time, so memory stays bounded whatever the attachment's size.
///
/// Not thread-safe; one reader at a time, as libcurl is.
public final class MessageStream {
    /// How many octets the whole message has.
    public let size: Int
    /// How many have been read so far.
    public private(set) var produced = 0

    private var segments: [Source]
    private var current = 0

    private enum Source {
        case bytes([UInt8], offset: Int)
        case base64(Base64Lines)
        /// A whole file as it is (a message already built, queued in the outbox).
        case file(FileSource)
    }

    init(segments: [OutgoingMessage.Segment], size: Int) throws(MIMEError) {
        self.size = size
        var sources: [Source] = []
        for segment in segments {
            switch segment {
            case .bytes(let bytes): sources.append(.bytes(bytes, offset: 0))
            case .base64Data(let data): sources.append(.base64(Base64Lines(data)))
            case .base64File(let path, let size): sources.append(.base64(Base64Lines(try FileSource(path: path, size: size))))
            }
        }
        self.segments = sources
    }

    /// A message already built, as it is: for submitting queued or saved messages.
    public init(bytes: [UInt8]) {
        size = bytes.count
        segments = [.bytes(bytes, offset: 0)]
    }

    /// The message in the regular file at `path`, as it is, read as the stream is read
    /// (a queued message with a 100 MB attachment is never held in memory). One of at most
    /// `readAtOnce` bytes is read whole now: its dot-stuffed size is then counted in memory
    /// rather than by reading the file twice (a flush sends thousands of small ones).
    public init(messageFile path: String) throws(MIMEError) {
        let file = try FileSource(opening: path, what: tr("message"))
        size = file.size
        if size <= Self.readAtOnce {
            var bytes = [UInt8](repeating: 0, count: size)
            _ = try file.read(into: &bytes)
            segments = [.bytes(bytes, offset: 0)]
        } else {
            segments = [.file(file)]
        }
    }

    /// The largest message file read whole when opened: what a text message with a small
    /// attachment takes.
    static let readAtOnce = 256 * 1024

    /// Copies up to `buffer.count` next octets into `buffer`; returns how many, 0 at the end.
    /// Throws an input error when an attachment file cannot be read or changed size.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(MIMEError) -> Int {
        var written = 0
        while written < buffer.count, current < segments.count {
            let room = UnsafeMutableRawBufferPointer(rebasing: buffer[written...])
            let count: Int
            switch segments[current] {
            case .bytes(let bytes, let offset):
                count = min(room.count, bytes.count - offset)
                bytes.withUnsafeBytes { source in
                    room.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + count)]))
                }
                if offset + count == bytes.count {
                    segments[current] = .bytes([], offset: 0)
                    current += 1
                } else {
                    segments[current] = .bytes(bytes, offset: offset + count)
                }
            case .base64(let encoder):
                count = try encoder.read(into: room)
                if count == 0 { current += 1 }
            case .file(let file):
                count = try file.read(into: room)
                if count == 0 { current += 1 }
            }
            written += count
        }
        produced += written
        return written
    }

    /// How many octets an SMTP client sends for this message between DATA and the final
    /// dot: its size, and one more for every line that starts with `.` (RFC 5321 §4.5.2,
    /// as libcurl stuffs them: a `.` at the very start or after CRLF). The size a client
    /// declares (RFC 1870 allows an estimate) must be this one with libcurl 7.88, which
    /// counts the octets it wrote, dots included, and stops reading the message when they
    /// reach the size declared (lib/transfer.c): the message's size alone would cut a
    /// message with such lines short by as many octets, at the end. Reads a message file
    /// once more for it; base64 never holds a `.`. Before any `read`.
    public func dotStuffedSize() throws(MIMEError) -> Int {
        precondition(produced == 0, "dotStuffedSize() is for a stream not read yet")
        var counter = LineStartDots()
        for segment in segments {
            switch segment {
            case .bytes(let bytes, _):
                counter.scan(bytes)
            case .base64(let encoder):
                // Never a dot, nor a line break at either end: nothing after it starts a line.
                if encoder.encodedSize > 0 { counter.scan([0x41]) }
            case .file(let file):
                let again = try FileSource(path: file.path, size: file.size, what: file.what)
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = try again.read(into: &chunk)
                    if count == 0 { break }
                    counter.scan(chunk[..<count])
                }
            }
        }
        return size + counter.dots
    }

    /// The whole rest of the stream in memory: for tests and small messages only.
    public func readAll() throws(MIMEError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size - produced)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let result = chunk.withUnsafeMutableBytes { buffer in Result { () throws(MIMEError) in try read(into: buffer) } }
            let count = try result.get()
            if count == 0 { return out }
            out += chunk[0..<count]
        }
    }
}

/// Counts the dots an SMTP client doubles: a `.` first in the message or after CRLF.
struct LineStartDots {
    private(set) var dots = 0
    /// The last two octets seen; the message starts as if after a CRLF.
    private var last: (UInt8, UInt8) = (0x0D, 0x0A)

    mutating func scan(_ bytes: some Collection<UInt8>) {
        for byte in bytes {
            if byte == UInt8(ascii: "."), last == (0x0D, 0x0A) { dots += 1 }
            last = (last.1, byte)
        }
    }
}

/// Base64 in 76-character lines joined by CRLF (RFC 2045 §6.8), encoded from its source
/// one chunk of whole lines at a time.
final class Base64Lines {
    /// 57 input octets make one 76-character line; 1024 lines per chunk (about 80 KB out).
    static let lineInput = 57
    static let chunkInput = 57 * 1024

    static func encodedSize(_ count: Int) -> Int {
        let characters = (count + 2) / 3 * 4
        let lines = (characters + 75) / 76
        return characters + max(lines - 1, 0) * 2
    }

    private enum Input {
        case file(FileSource)
        case data([UInt8], offset: Int)
    }

    private var input: Input
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    private var raw = [UInt8]()
    private var firstLine = true

    /// How many octets the whole encoding has (`encodedSize` of the input).
    let encodedSize: Int

    init(_ data: [UInt8]) {
        input = .data(data, offset: 0)
        encodedSize = Self.encodedSize(data.count)
    }

    init(_ file: FileSource) {
        input = .file(file)
        encodedSize = Self.encodedSize(file.size)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(MIMEError) -> Int {
        if pendingOffset == pending.count {
            try refill()
            if pending.isEmpty { return 0 }
        }
        let count = min(buffer.count, pending.count - pendingOffset)
        pending.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[pendingOffset..<(pendingOffset + count)]))
        }
        pendingOffset += count
        return count
    }

    private func refill() throws(MIMEError) {
        pending.removeAll(keepingCapacity: true)
        pendingOffset = 0
        let got: Int
        switch input {
        case .file(let file):
            if raw.count != Self.chunkInput { raw = [UInt8](repeating: 0, count: Self.chunkInput) }
            got = try file.read(into: &raw)
        case .data(let data, let offset):
            got = min(Self.chunkInput, data.count - offset)
            raw.removeAll(keepingCapacity: true)
            raw += data[offset..<(offset + got)]
            input = .data(data, offset: offset + got)
        }
        guard got > 0 else { return }
        // Exact output size: 4 characters per 3 octets (rounded up), CRLF before every line
        // but the attachment's first.
        let lines = (got + Self.lineInput - 1) / Self.lineInput
        let breaks = firstLine ? lines - 1 : lines
        let size = (got + 2) / 3 * 4 + breaks * 2
        pending = [UInt8](unsafeUninitializedCapacity: size) { out, count in
            raw.withUnsafeBufferPointer { source in
                var written = 0
                var start = 0
                while start < got {
                    let end = min(start + Self.lineInput, got)
                    if !firstLine {
                        out[written] = 0x0D
                        out[written + 1] = 0x0A
                        written += 2
                    }
                    firstLine = false
                    written += Base64.encode(UnsafeBufferPointer(rebasing: source[start..<end]),
                                             into: UnsafeMutableBufferPointer(rebasing: out[written...]))
                    start = end
                }
                count = written
            }
        }
    }
}

/// An attachment file (or a whole message file), opened for reading when the stream is
/// made; the one owner of the descriptor (closed in `deinit`).
final class FileSource {
    let path: String
    /// "attachment" or "message": what errors call the file.
    let what: String
    /// The octets read from it in all (the size measured when the message was built).
    let size: Int
    private let descriptor: Int32
    private var remaining: Int

    /// The size of the regular file at `path`, checked when the message is built so that
    /// a missing attachment is reported before any server is contacted.
    /// `path` is a `LocalPath` (an attachment's name may not be UTF-8).
    static func size(of path: String, what: String = tr("attachment")) throws(MIMEError) -> Int {
        var info = stat()
        guard LocalPath.withCString(path, { stat($0, &info) }) == 0 else {
            throw .input(tr("cannot read %@ %@: %@", what, LocalPath.display(path), systemErrorText(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .input(tr("%@ is not a regular file: %@", what, LocalPath.display(path))) }
        return Int(info.st_size)
    }

    init(path: String, size: Int, what: String = tr("attachment")) throws(MIMEError) {
        self.path = path
        self.what = what
        descriptor = LocalPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw .input(tr("cannot open %@ %@: %@", what, LocalPath.display(path), systemErrorText(errno)))
        }
        self.size = size
        remaining = size
        adviseSequential()
    }

    /// Opens the regular file at `path` and takes its size from the open file (`fstat`): one
    /// lookup of the path, where `size(of:)` and `init(path:size:)` make two (a flush
    /// opens each of its messages so), without updating its access time
    /// (`MailtoCore.openForReading`).
    init(opening path: String, what: String) throws(MIMEError) {
        let opened = openForReading(path)
        guard opened >= 0 else {
            throw .input(tr("cannot open %@ %@: %@", what, LocalPath.display(path), systemErrorText(errno)))
        }
        var info = stat()
        guard fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            let problem = info.st_mode & S_IFMT == S_IFREG ? tr("cannot read %@ %@: %@", what, LocalPath.display(path), systemErrorText(errno))
                : tr("%@ is not a regular file: %@", what, LocalPath.display(path))
            close(opened)
            throw .input(problem)
        }
        self.path = path
        self.what = what
        descriptor = opened
        size = Int(info.st_size)
        remaining = size
        adviseSequential()
    }

    /// Read once from start to end: tells the kernel, so that read-ahead is generous, for
    /// a file larger than one read (a small one is read at once anyway).
    private func adviseSequential() {
        if remaining > 65_536 { _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL) }
    }

    deinit { close(descriptor) }

    /// Fills `buffer` from the file (short only at the end); exactly the size measured when
    /// the message was built, or an error: a message must not say one thing and send another.
    func read(into buffer: inout [UInt8]) throws(MIMEError) -> Int {
        let result = buffer.withUnsafeMutableBytes { raw in Result { () throws(MIMEError) in try read(into: raw) } }
        return try result.get()
    }

    /// The same into raw memory; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(MIMEError) -> Int {
        let wanted = min(buffer.count, remaining)
        var filled = 0
        while filled < wanted {
            let got = Glibc.read(descriptor, buffer.baseAddress.map { $0 + filled }, wanted - filled)
            if got < 0 {
                if errno == EINTR { continue }
                throw .input(tr("cannot read %@ %@: %@", what, LocalPath.display(path), systemErrorText(errno)))
            }
            if got == 0 { throw .input(tr("%@ %@ became shorter while it was sent", what, LocalPath.display(path))) }
            filled += got
        }
        remaining -= filled
        return filled
    }
}
