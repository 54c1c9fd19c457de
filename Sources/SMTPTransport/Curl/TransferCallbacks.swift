internal import CCurl
import MailtoCore
import MIMEMessage

/// What the callbacks of one SMTP session work on: the dialogue, as far as a report needs
/// it, and the watch on it: a session where nothing moves either way for `patience` is
/// ended by the progress callback. Owned by the caller of `CurlEasy.perform` for its
/// length, passed to libcurl unretained.
class DialogueState {
    var replies = ReplyLog()
    /// Milliseconds.
    let patience: Int
    /// When a byte last went to or came from the server (`MonotonicClock` milliseconds).
    private(set) var lastMoved = MonotonicClock.milliseconds
    /// The progress callback ended the session: nothing moved for `patience`.
    private(set) var stalled = false

    init(patience seconds: Int) {
        patience = seconds * 1000
    }

    /// When the session is ended if nothing moves before.
    var deadline: Int { lastMoved + patience }

    func moved() {
        lastMoved = MonotonicClock.milliseconds
    }

    /// The progress callback's answer: `false` ends the session.
    func goesOn(uploaded count: Int) -> Bool {
        uploaded(count)
        guard MonotonicClock.milliseconds >= deadline else { return true }
        stalled = true
        return false
    }

    /// Bytes of the message sent so far; a transfer tells its caller.
    func uploaded(_ count: Int) {}

    /// The cause of a session that ended with `code`, and libcurl's words for it, or, for a
    /// session the progress callback ended (one that timed out), these callbacks' own words
    /// for a person (`stall`).
    func failure(_ code: CURLcode, of easy: CurlEasy) -> (code: CURLcode, detail: String, stall: String?) {
        stalled ? (CURLE_OPERATION_TIMEDOUT, "", stallDescription) : (code, easy.errorText(code), nil)
    }

    /// What the server left waiting, for the error of a session that stalled.
    var stallDescription: String {
        let seconds = patience / 1000
        if let command = replies.unanswered { return tr("no answer to %@ within %@ s", command, seconds) }
        return tr("nothing moved for %@ s", seconds)
    }
}

/// What the C callbacks of one transfer work on; owned by `SMTPSession.transfer` for the
/// length of `CurlEasy.perform`, passed to libcurl unretained.
final class TransferState: DialogueState {
    let stream: MessageStream
    var streamError: MIMEError?
    let progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)?
    /// The account has a login (a user, or a bearer token): the message goes only over a
    /// session that logged in (see `sendsWithoutLogin`).
    let needsLogin: Bool
    /// Set when the transfer was stopped before the message because the session made no
    /// login.
    var offeredNoLogin = false
    /// `RawMessage.beforeEnd`, called once, before the end (`reachedEnd`).
    private let beforeEnd: (@Sendable () throws -> Void)?
    /// What `beforeEnd` threw: the transfer was stopped before the end of the message.
    var endRefused: Error?
    /// A person's Stop: the transfer ends while the end of the message has not gone out.
    let stop: SendStop?
    /// The chunk that ends the message was asked for (`beforeEnd` and `stop` had their say).
    private var reachedEnd = false

    init(stream: MessageStream, patience: Int, needsLogin: Bool, progress: (@Sendable (Int, Int) -> Void)?,
         beforeEnd: (@Sendable () throws -> Void)? = nil, stop: SendStop? = nil) {
        self.stream = stream
        self.needsLogin = needsLogin
        self.progress = progress
        self.beforeEnd = beforeEnd
        self.stop = stop
        super.init(patience: patience)
    }

    /// The next chunk of the message into `buffer`; `beforeEnd`, then `stop`, are asked
    /// before the chunk that ends it goes out (libcurl may never ask past the size it was
    /// given): the point after which the server may have the message.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = try stream.read(into: buffer)
        if stream.produced == stream.size, !reachedEnd {
            reachedEnd = true
            do {
                try beforeEnd?()
            } catch {
                endRefused = error
                throw EndRefused()
            }
            if let stop, !stop.commit() { throw EndRefused() }
        }
        return count
    }

    /// The progress callback's answer: a Stop asked for ends the transfer too.
    override func goesOn(uploaded count: Int) -> Bool {
        if stop?.endsTransfer() == true { return false }
        return super.goesOn(uploaded: count)
    }

    /// `read` stopped the transfer: `endRefused` says why.
    struct EndRefused: Error {}

    /// libcurl logs in only where the server's EHLO offers AUTH, and otherwise sends the
    /// message without a word (7.88): a login the account has but the session never used
    /// would go unnoticed, as msmtp's `auth on` does not let it. The fact is the probe's:
    /// no AUTH exchange was heard (`replies.authCode`). Asked when libcurl first wants the
    /// message's bytes, after DATA's 354 and before any of them: the transfer is aborted
    /// there and the server, which never sees the end of the data, delivers nothing. Only
    /// a session opened in this transfer (its EHLO heard) says it: a reused connection was
    /// judged by the transfer that opened it.
    var sendsWithoutLogin: Bool {
        needsLogin && stream.produced == 0 && replies.heardEHLO && replies.authCode == nil
    }

    override func uploaded(_ count: Int) {
        progress?(count, stream.size)
    }

    /// Once libcurl has the whole message, what is left to hear is the answer to its end.
    override var stallDescription: String {
        let readToEnd = stream.produced == stream.size
        return readToEnd && replies.unanswered == nil ? tr("no answer to the end of the message within %@ s", patience / 1000) : super.stallDescription
    }
}

/// CURLOPT_READFUNCTION: the next chunk of the message. An unreadable attachment aborts
/// the transfer (CURL_READFUNC_ABORT) and is reported as the cause.
func curlReadCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let userdata else { return mr_curl_readfunc_abort() }
    let state = Unmanaged<TransferState>.fromOpaque(userdata).takeUnretainedValue()
    if state.sendsWithoutLogin {
        state.offeredNoLogin = true
        return mr_curl_readfunc_abort()
    }
    do {
        return try state.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    } catch is TransferState.EndRefused {
        return mr_curl_readfunc_abort()
    } catch {
        state.streamError = error as? MIMEError
        return mr_curl_readfunc_abort()
    }
}

/// CURLOPT_DEBUGFUNCTION: the SMTP dialogue, for the server's replies (CURLINFO_HEADER_IN)
/// and which command each answers (CURLINFO_HEADER_OUT); message data and TLS records only
/// say that something moved. Nothing is printed.
func curlDebugCallback(_ handle: UnsafeMutableRawPointer?, _ type: curl_infotype, _ data: UnsafeMutablePointer<CChar>?,
                       _ size: Int, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let data, let userdata else { return 0 }
    let state = Unmanaged<DialogueState>.fromOpaque(userdata).takeUnretainedValue()
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size)
    switch type {
    case CURLINFO_HEADER_IN:
        state.moved()
        state.replies.serverData(bytes)
    case CURLINFO_HEADER_OUT:
        state.moved()
        state.replies.clientLine(bytes)
    case CURLINFO_DATA_IN, CURLINFO_DATA_OUT, CURLINFO_SSL_DATA_IN, CURLINFO_SSL_DATA_OUT:
        state.moved()
    default:
        break
    }
    return 0
}

/// CURLOPT_XFERINFOFUNCTION, set for every session: bytes of the message sent so far, and
/// the watch on the session. libcurl calls it each time it runs the session (`CurlEasy.perform`
/// makes sure that is at the deadline too); returning non-zero ends the session with
/// CURLE_ABORTED_BY_CALLBACK, which libcurl takes as a connection to drop at once, without
/// the QUIT it would otherwise send and wait for.
func curlProgressCallback(_ userdata: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloaded: curl_off_t,
                          _ uploadTotal: curl_off_t, _ uploaded: curl_off_t) -> Int32 {
    guard let userdata else { return 0 }
    let state = Unmanaged<DialogueState>.fromOpaque(userdata).takeUnretainedValue()
    return state.goesOn(uploaded: Int(uploaded)) ? 0 : 1
}

/// CURLOPT_WRITEFUNCTION of a probe: the answer to its NOOP is not wanted (libcurl would
/// otherwise print it on standard output); taking every byte keeps the transfer going.
func curlDiscardCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    size * count
}
