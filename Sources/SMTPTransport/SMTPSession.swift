internal import CCurl
public import MIMEMessage
import MailtoCore

/// A message already built (RFC 5322 bytes, as queued in the outbox or saved as a draft)
/// and the envelope to submit it with.
public struct RawMessage: Sendable {
    public enum Content: Sendable {
        case bytes([UInt8])
        /// A file read as it is sent, never whole into memory.
        case file(String)
    }

    public var content: Content
    /// MAIL FROM, a bare address.
    public var envelopeFrom: String
    /// RCPT TO, bare addresses, in order.
    public var recipients: [String]
    /// Called once, before the last of the message goes to the server: the server cannot
    /// accept the message before it returns. When it throws, the transfer ends there, the
    /// end of the data unsent, and the server accepts nothing (`SMTPError` of kind
    /// `.transient` with its words). An outbox flush waits here for the message before to
    /// be out of the outbox, so that a kill repeats at most one message.
    public var beforeEnd: (@Sendable () throws -> Void)?

    public init(_ content: Content, envelopeFrom: String, recipients: [String], beforeEnd: (@Sendable () throws -> Void)? = nil) {
        self.content = content
        self.envelopeFrom = envelopeFrom
        self.recipients = recipients
        self.beforeEnd = beforeEnd
    }
}

/// One SMTP connection for many messages: one libcurl easy handle kept across transfers,
/// so that libcurl reuses its connection (no new TCP, TLS, EHLO and AUTH per message); only
/// the envelope and the message change between transfers. libcurl opens a new connection
/// by itself when the server closed the old one.
///
/// When the server cannot be reached (no connection, no greeting, `421`, a refused login
/// or certificate), every later `send` fails at once with the same error instead of
/// waiting for its own timeout: a flush of many messages to a server that is down takes
/// one connection attempt.
///
/// Not thread-safe: one transfer at a time, as the easy handle allows.
public final class SMTPSession {
    /// The server, its host as libcurl is given it (an A-label).
    public let server: SMTPServer
    private let library: CurlLibrary
    private let easy: CurlEasy
    /// Set when the server proved unreachable; every later message fails with it.
    private var unreachable: SMTPError?
    /// The extensions the server offered in its last EHLO (`SIZE 10240000`, `SMTPUTF8`,
    /// ...): those of the connection kept, which a transfer that reuses it does not hear
    /// again; `nil` before any EHLO was heard.
    private(set) var capabilities: [String]?

    /// Checks and configures; connects only with the first message.
    public init(_ server: SMTPServer) throws(SMTPError) {
        var server = server
        // An international host name goes to the resolver as its A-label.
        server.host = IDNA.asciiDomain(server.host)
        try SMTPSubmission.checkServer(server)
        self.server = server
        library = try CurlLibrary.load()
        easy = try CurlEasy(library)
        try SMTPSubmission.configure(easy, server: server)
    }

    /// Submits `message` as it is, Message-ID and all. Returns when the server accepted it
    /// for at least one recipient; throws an `SMTPError` whose kind says whether a retry
    /// can help. `stop`: a person's Stop, honoured until the end of the message goes out
    /// (`SendStop`).
    public func send(_ message: RawMessage, stop: SendStop? = nil) throws(SMTPError) -> SMTPReceipt {
        for address in [message.envelopeFrom] + message.recipients {
            try Self.checkEnvelopeAddress(address)
        }
        guard !message.recipients.isEmpty else { throw SMTPError(.input, tr("no recipient in the envelope")) }
        let stream: MessageStream
        switch message.content {
        case .bytes(let bytes): stream = MessageStream(bytes: bytes)
        case .file(let path):
            do { stream = try MessageStream(messageFile: path) } catch { throw SMTPError(.input, error.message) }
        }
        return try transfer(stream, from: message.envelopeFrom, to: message.recipients, progress: nil, beforeEnd: message.beforeEnd,
                            stop: stop)
    }

    /// Sends `message`, built now and streamed as it goes out, to its recipients.
    /// `progress` hears the bytes sent of the total, from the sending thread.
    public func send(
        _ message: OutgoingMessage, progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)? = nil, stop: SendStop? = nil
    ) throws(SMTPError) -> SMTPReceipt {
        let stream: MessageStream
        do { stream = try message.makeStream() } catch { throw SMTPError(.input, error.message) }
        return try transfer(stream, from: message.from.asciiAddress, to: message.recipients.map(\.asciiAddress), progress: progress,
                            stop: stop)
    }

    /// One transfer over the kept handle: the shared core of both `send`s.
    func transfer(
        _ stream: MessageStream, from: String, to recipients: [String],
        progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)?, beforeEnd: (@Sendable () throws -> Void)? = nil,
        stop: SendStop? = nil
    ) throws(SMTPError) -> SMTPReceipt {
        if let unreachable {
            throw SMTPError(unreachable.kind, tr("not tried: %@", unreachable.message), reply: unreachable.reply)
        }
        if let address = ([from] + recipients).first(where: { $0.utf8.contains { $0 >= 0x80 } }) {
            try checkSMTPUTF8(for: address)
        }
        // SIZE= in MAIL FROM (RFC 1870; libcurl adds it when the server offers SIZE), so that
        // a server that cannot take the message says so before it is sent rather than after.
        let declaredSize: Int
        do { declaredSize = try stream.dotStuffedSize() } catch { throw SMTPError(.input, error.message) }
        try easy.set(CURLOPT_INFILESIZE_LARGE, size: declaredSize)
        let state = TransferState(stream: stream, patience: server.stallTimeout,
                                  needsLogin: server.user != nil || server.bearerToken != nil, progress: progress, beforeEnd: beforeEnd,
                                  stop: stop)
        // `state` outlives the transfer: perform() returns before this function does, and
        // the handle's pointers to it are cleared below, before anything else can run.
        let opaque = Unmanaged.passUnretained(state).toOpaque()
        defer { easy.clearTransferData() }
        try easy.set(CURLOPT_MAIL_FROM, "<\(from)>")
        try easy.set(CURLOPT_MAIL_RCPT, list: recipients.map { "<\($0)>" })
        try easy.setReadCallback(curlReadCallback, data: opaque)
        try easy.setDebugCallback(curlDebugCallback, data: opaque)
        try easy.setProgressCallback(curlProgressCallback, data: opaque)

        let code = withExtendedLifetime(state) { easy.perform(wakeAt: { state.deadline }, stop: stop) }
        if state.replies.heardEHLO { capabilities = state.replies.capabilities }
        if state.offeredNoLogin {
            // Every later message would meet the same server: it fails at once.
            let error = SMTPError(.configuration, tr("%@ offers no login (AUTH), but the account has one: not sent without it (the server may take mail only from its own network, or the port may be the wrong one)", server.address))
            unreachable = error
            throw error
        }
        guard code == CURLE_OK else {
            // Stopped: the server never had the end of the message, so it has no message.
            if stop?.wasStopped == true { throw SMTPError(.input, FailureCause.stopped.reason, cause: .stopped) }
            if let streamError = state.streamError { throw SMTPError(.input, streamError.message) }
            if let endRefused = state.endRefused { throw SMTPError(.transient, tr("not sent: %@", "\(endRefused)")) }
            throw failure(code, of: state, messageSize: stream.size)
        }
        let refused = state.replies.refused
        let refusedAddresses = Set(refused.map(\.address))
        return SMTPReceipt(
            server: server.address, reply: state.replies.lastReply,
            accepted: recipients.filter { !refusedAddresses.contains($0) }, refused: refused
        )
    }

    /// The error of a session that ended with `code` (and, when it could reach the server
    /// no more, of every later one: `unreachable`).
    private func failure(_ code: CURLcode, of state: DialogueState, messageSize: Int? = nil) -> SMTPError {
        let replies = state.replies
        // The handle's last reply code may be the previous message's: only a reply
        // heard in this session counts.
        let responseCode = replies.lastReply.isEmpty ? 0 : easy.responseCode
        let (reason, detail, stall) = state.failure(code, of: easy)
        let limit = SMTPSubmission.sizeLimit(in: capabilities ?? [])
        let oversized = limit.flatMap { limit in messageSize.flatMap { $0 > limit ? ($0, limit) : nil } }
        let error = SMTPSubmission.classify(reason, responseCode: responseCode, reply: replies.lastReply,
                                            refused: replies.refused, detail: detail, stall: stall, server: server,
                                            oversized: oversized)
        if Self.meansUnreachable(reason, error: error, reply: replies.lastReply) { unreachable = error }
        return error
    }

    // MARK: - SMTPUTF8

    /// RFC 6531 §3.4: an address whose local part is not ASCII goes only to a server that
    /// offered SMTPUTF8, with SMTPUTF8 declared in MAIL FROM, which libcurl does (7.69 and
    /// later) when both hold; without them it would send the address all the same. So
    /// either both can, or the message is refused here, saying which cannot, before a word
    /// of it is sent. The server's offer is that of the connection kept, or asked for now.
    private func checkSMTPUTF8(for address: String) throws(SMTPError) {
        let libcurl = library.version
        // libcurl first: no connection is needed to know that it cannot.
        if let refusal = SMTPSubmission.smtpUTF8Refusal(address, libcurl: libcurl, capabilities: nil, server: server.address) {
            throw SMTPError(.permanent, refusal)
        }
        if capabilities == nil { try askCapabilities() }
        if let refusal = SMTPSubmission.smtpUTF8Refusal(address, libcurl: libcurl, capabilities: capabilities ?? [], server: server.address) {
            throw SMTPError(.permanent, refusal)
        }
    }

    /// What the server offers, from its EHLO, heard through a NOOP: a session that sends
    /// nothing, whose connection the message then takes.
    private func askCapabilities() throws(SMTPError) {
        let state = DialogueState(patience: server.stallTimeout)
        // Not an upload, no recipients: libcurl runs the NOOP instead of a mail transaction.
        try easy.set(CURLOPT_UPLOAD, 0)
        try easy.set(CURLOPT_MAIL_RCPT, list: [])
        let code = try SMTPSubmission.noop(easy, state: state)
        try easy.set(CURLOPT_CUSTOMREQUEST, pointer: nil)
        try easy.set(CURLOPT_UPLOAD, 1)
        if state.replies.heardEHLO { capabilities = state.replies.capabilities }
        guard code == CURLE_OK else { throw failure(code, of: state) }
    }

    /// Whether the next message would meet the same failure before it is even looked at:
    /// no connection, a server that never spoke or closes the session (RFC 5321 §3.8:
    /// 421), or an account the server will not take. A reply about this message (a refused
    /// recipient, a 4xx or 5xx to its DATA) says nothing about the next.
    static func meansUnreachable(_ code: CURLcode, error: SMTPError, reply: String) -> Bool {
        if error.kind == .configuration || reply.hasPrefix("421") { return true }
        guard reply.isEmpty else { return false }
        return [CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_OPERATION_TIMEDOUT]
            .contains(code)
    }

    /// An envelope address from a stored message: never a byte that would end or change
    /// the SMTP command (docs/design.md rule 4).
    static func checkEnvelopeAddress(_ address: String) throws(SMTPError) {
        let bytes = address.utf8
        if bytes.isEmpty || bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) {
            throw SMTPError(.input, tr("invalid envelope address '%@'", address.visible))
        }
    }
}
