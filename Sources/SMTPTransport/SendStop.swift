import MailtoCore
import Synchronization

/// A person's Stop while their message is being sent (the sheet's Cancel during
/// "Sending…"; docs/design.md rule 1). It ends the transfer only while the server cannot
/// have the message yet: before the end of its data goes out, since a server takes a
/// message at its end and not before (RFC 5321 §4.1.1.4). From there on it is too late,
/// and what the server answers stands. The connection is dropped without its end, and
/// without the QUIT a server that stopped answering would not answer.
///
/// `ask` may be called from any thread; the rest is the sending thread's, in the transfer
/// (`SMTPSession`'s, or a test's fake sender, which honours it the same way).
public final class SendStop: Sendable {
    private enum State {
        case sending
        /// Asked for; the sending thread has not seen it yet.
        case asked
        case stopped
        /// The end of the message went out: too late to stop.
        case committed
        /// `beforeStopping` threw (why): the send went on.
        case refused(String)
    }

    private let state = Mutex(State.sending)
    /// Wakes the transfer's wait on its socket (`curl_multi_wakeup`), so that a stop asked
    /// while the server is silent is seen at once, not at the next second's turn. Set by
    /// the transfer while it runs, called under this lock: never after the transfer ended.
    private let waker = Mutex<(@Sendable () -> Void)?>(nil)
    private let beforeStopping = Mutex<(@Sendable () throws -> Void)?>(nil)

    public init() {}

    /// What must be done before the transfer ends, on the sending thread (a held message
    /// taken out of the outbox, durably, so that nobody sends it later), set by the sender
    /// before it sends. When it throws, the stop is refused and the message goes on
    /// (`refusal`).
    public func setBeforeStopping(_ step: @escaping @Sendable () throws -> Void) {
        beforeStopping.withLock { $0 = step }
    }

    /// Asks the transfer to stop; `false` when it is too late (the end of the message went
    /// out, or the stop was refused). The outcome is the send's: `wasStopped`.
    @discardableResult
    public func ask() -> Bool {
        let asked = state.withLock { state -> Bool in
            switch state {
            case .sending:
                state = .asked
                return true
            case .asked, .stopped:
                return true
            case .committed, .refused:
                return false
            }
        }
        if asked { waker.withLock { $0?() } }
        return asked
    }

    /// The transfer ended because it was stopped: the server has no end of the message.
    public var wasStopped: Bool {
        state.withLock { if case .stopped = $0 { true } else { false } }
    }

    /// Why a stop that was asked for was not made (`beforeStopping` threw).
    public var refusal: String? {
        state.withLock { if case .refused(let why) = $0 { why } else { nil } }
    }

    // MARK: - The sending thread's side

    /// Whether the transfer ends now: a stop was asked and `beforeStopping` did its part.
    public func endsTransfer() -> Bool {
        let asked = state.withLock { state -> Bool? in
            switch state {
            case .asked: true
            case .stopped: nil
            case .sending, .committed, .refused: false
            }
        }
        guard let asked else { return true }
        guard asked else { return false }
        // Outside the lock: it may write and sync a file, and `ask` must not wait for that.
        do {
            try beforeStopping.withLock { $0 }?()
            state.withLock { $0 = .stopped }
            return true
        } catch {
            let why = (error as? any ClassifiedError)?.description ?? "\(error)"
            state.withLock { $0 = .refused(why) }
            return false
        }
    }

    /// Called before the end of the message goes out: `false` stops it there (a stop was
    /// asked); `true` lets it go, and every later `ask` is too late.
    func commit() -> Bool {
        while true {
            // One look under the lock: a stop asked after it is too late.
            let decided = state.withLock { state -> Bool? in
                switch state {
                case .sending:
                    state = .committed
                    return true
                case .committed, .refused: return true
                case .stopped: return false
                case .asked: return nil
                }
            }
            if let decided { return decided }
            // Asked: stopped here, or refused (then the next look lets it go).
            if endsTransfer() { return false }
        }
    }

    /// The send is over (its caller has the outcome): a later `ask` is too late.
    public func end() {
        state.withLock { state in
            if case .sending = state { state = .committed }
        }
    }

    /// Runs `transfer` with `wake` as the way `ask` wakes it.
    public func whileTransferring<T, E: Error>(wake: @escaping @Sendable () -> Void, _ transfer: () throws(E) -> T) throws(E) -> T {
        waker.withLock { $0 = wake }
        defer { waker.withLock { $0 = nil } }
        return try transfer()
    }
}
