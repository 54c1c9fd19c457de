#if canImport(Glibc)
import Glibc
#endif
public import MailtoCore
internal import Outbox
import Synchronization

/// The sheet's side of mailto-route-books, the program that reads the desktop's address
/// books (Evolution Data Server, through libebook) for the To, Cc and Bcc completion.
///
/// libebook is a program of its own rather than a library of the sheet's: linked, it and
/// the forty-odd libraries under it (ICU, NSS, libphonenumber, libsoup...) roughly doubled
/// the dynamic loading of a GTK program, paid at every click before the sheet is mapped,
/// for a completion that may never be asked (docs/layout.md has the figures); and a
/// libedataserver that aborts (a settings schema missing) or hangs takes only its own
/// process down. The helper is started the first time someone types, and kept while this
/// process lives (it ends when its socket closes).
///
/// Thread-safe, and blocking: the completion calls `contacts(matching:)` from a thread of
/// its own for each change of the field, and the calls are served one at a time. A call
/// made while a newer one waits is answered with nothing at once (its answer would be
/// dropped anyway: the field has moved on), and no answer is waited for longer than a
/// deadline, so a slow EDS costs at most one deadline per burst of typing. A helper that
/// ends (no books to read) or misses its deadline (killed then) leaves the completion to
/// the history for `retryAfter`, then one is started again.
public final class AddressBookHelper: Sendable {
    /// The helper's name, beside mailto-route-desktop.
    public static let programName = "mailto-route-books"

    private let program: String?
    private let environment: [String]?
    private let firstAnswerWithin: Duration
    private let answerWithin: Duration
    private let retryAfter: Duration
    /// The number of the newest call.
    private let newest = Mutex<UInt64>(0)
    /// The helper, held for the whole of each exchange.
    private let helper = Mutex(Helper())

    private struct Helper {
        var running: Running?
        var failedAt: ContinuousClock.Instant?
    }

    /// A started helper: its process and this end of its socket.
    private struct Running {
        var pid: pid_t
        var socket: Int32
        var answered = false
        var pending: [UInt8] = []
    }

    /// `program`: the helper's path (`nil`: none, and no contacts), run in `environment`
    /// (`nil`: this process's, with its session bus). The first answer includes opening the
    /// books (EDS may have to be started by the bus).
    public init(program: String?, environment: [String: String]? = nil, firstAnswerWithin: Duration = .seconds(5),
                answerWithin: Duration = .seconds(2), retryAfter: Duration = .seconds(60)) {
        self.program = program
        self.environment = environment.map { variables in variables.map { "\($0.key)=\($0.value)" } }
        self.firstAnswerWithin = firstAnswerWithin
        self.answerWithin = answerWithin
        self.retryAfter = retryAfter
    }

    /// How many calls have been made (the newest one's number): for tests, which make a call
    /// only once the one before is under way, as typing does.
    var callsMade: UInt64 { newest.withLock { $0 } }

    deinit {
        helper.withLock { state in
            if let running = state.running { Self.stop(running) }
        }
    }

    /// The contacts whose name or address begins with `prefix`, as the books answer; empty
    /// when there are none, no books, no answer in time, or a newer call waits.
    public func contacts(matching prefix: String) -> [Contact] {
        let number = newest.withLock { newest in
            newest += 1
            return newest
        }
        return helper.withLock { state in
            guard newest.withLock({ $0 }) == number else { return [] }
            return exchange(prefix, &state)
        }
    }

    private func exchange(_ prefix: String, _ state: inout Helper) -> [Contact] {
        let clock = ContinuousClock()
        if state.running == nil {
            if let failedAt = state.failedAt, clock.now - failedAt < retryAfter { return [] }
            guard let program, let started = Self.start(program, environment: environment) else {
                state.failedAt = clock.now
                return []
            }
            state.running = started
        }
        guard var running = state.running else { return [] }
        let deadline = clock.now + (running.answered ? answerWithin : firstAnswerWithin)
        guard Self.send(Array(HelperProtocol.request(prefix).utf8), to: running.socket),
              let line = Self.readLine(from: &running, until: deadline) else {
            // Ended (no books), silent past the deadline, or gone: history only for a while.
            Self.stop(running)
            state.running = nil
            state.failedAt = clock.now
            return []
        }
        running.answered = true
        state.running = running
        return HelperProtocol.contacts(fromAnswer: line)
    }

    /// Starts `program` with one end of a new socket pair as its standard input and
    /// output, its standard error to /dev/null (EDS's warnings are no business of the
    /// sheet's output), in `environment` (`KEY=value` strings; `nil`: this process's).
    /// Wraps `socketpair(2)`; started by the outbox's `spawn`, the project's one door to
    /// `posix_spawn`.
    private static func start(_ program: String, environment: [String]?) -> Running? {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { return nil }
        // dup2 clears FD_CLOEXEC on the copies; both originals close at exec.
        let pid = try? spawn([program], input: .descriptor(ends[1]), output: .descriptor(ends[1]), errors: .devNull,
                             environment: environment, newSession: false)
        close(ends[1])
        guard let pid else {
            close(ends[0])
            return nil
        }
        return Running(pid: pid, socket: ends[0])
    }

    /// Kills the helper (it may be stuck in a call to EDS) and reaps it.
    private static func stop(_ running: Running) {
        close(running.socket)
        kill(running.pid, SIGKILL)
        _ = waitFor(running.pid)
    }

    /// Wraps `send(2)` with `MSG_NOSIGNAL`: a helper that has gone is an error, not SIGPIPE.
    private static func send(_ bytes: [UInt8], to socket: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// The next line the helper writes, without its end; `nil` at the end of its output,
    /// on an error, or when `deadline` passes first. Wraps `poll(2)` and `read(2)`.
    private static func readLine(from running: inout Running, until deadline: ContinuousClock.Instant) -> String? {
        let clock = ContinuousClock()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = running.pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: running.pending[..<end], as: UTF8.self)
                running.pending.removeSubrange(...end)
                return line
            }
            let left = deadline - clock.now
            guard left > .zero else { return nil }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            var wanted = pollfd(fd: running.socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&wanted, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { return nil }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(running.socket, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            running.pending += chunk[..<count]
        }
    }
}
