internal import CCurl
import MIMEMessage

/// What the debug callback of one SMTP session works on: the dialogue, as far as a report
/// needs it. Owned by the caller of `curl_easy_perform` for its length, passed to libcurl
/// unretained.
class DialogueState {
    var replies = ReplyLog()
}

/// What the C callbacks of one transfer work on; owned by `SMTPSession.transfer` for the
/// length of `curl_easy_perform`, passed to libcurl unretained.
final class TransferState: DialogueState {
    let stream: MessageStream
    var streamError: MIMEError?
    let progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)?

    init(stream: MessageStream, progress: (@Sendable (Int, Int) -> Void)?) {
        self.stream = stream
        self.progress = progress
    }
}

/// CURLOPT_READFUNCTION: the next chunk of the message. An unreadable attachment aborts
/// the transfer (CURL_READFUNC_ABORT) and is reported as the cause.
func curlReadCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let userdata else { return mr_curl_readfunc_abort() }
    let state = Unmanaged<TransferState>.fromOpaque(userdata).takeUnretainedValue()
    do {
        return try state.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    } catch {
        state.streamError = error
        return mr_curl_readfunc_abort()
    }
}

/// CURLOPT_DEBUGFUNCTION: the SMTP dialogue, for the server's replies (CURLINFO_HEADER_IN)
/// and which command each answers (CURLINFO_HEADER_OUT). Message data and TLS records are
/// ignored; nothing is printed.
func curlDebugCallback(_ handle: UnsafeMutableRawPointer?, _ type: curl_infotype, _ data: UnsafeMutablePointer<CChar>?,
                       _ size: Int, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let data, let userdata else { return 0 }
    let state = Unmanaged<DialogueState>.fromOpaque(userdata).takeUnretainedValue()
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size)
    switch type {
    case CURLINFO_HEADER_IN: state.replies.serverData(bytes)
    case CURLINFO_HEADER_OUT: state.replies.clientLine(bytes)
    default: break
    }
    return 0
}

/// CURLOPT_XFERINFOFUNCTION: bytes of the message sent so far; never cancels.
func curlProgressCallback(_ userdata: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloaded: curl_off_t,
                          _ uploadTotal: curl_off_t, _ uploaded: curl_off_t) -> Int32 {
    guard let userdata else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(userdata).takeUnretainedValue()
    state.progress?(Int(uploaded), state.stream.size)
    return 0
}

/// CURLOPT_WRITEFUNCTION of a probe: the answer to its NOOP is not wanted (libcurl would
/// otherwise print it on standard output); taking every byte keeps the transfer going.
func curlDiscardCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    size * count
}
