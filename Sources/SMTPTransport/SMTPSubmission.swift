internal import CCurl
public import MIMEMessage

/// Submits one message over SMTP with libcurl: `smtp`/`smtps` only, TLS verified,
/// one RCPT per recipient, the message streamed from `OutgoingMessage`.
public enum SMTPSubmission {
    /// Sends `message` to its recipients through `server`. Returns when the server accepted
    /// the message for at least one recipient; the receipt names any it refused.
    /// Throws an `SMTPError` whose kind says whether a retry can help.
    public static func send(
        _ message: OutgoingMessage, via server: SMTPServer,
        progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)? = nil
    ) throws(SMTPError) -> SMTPReceipt {
        var server = server
        // An international host name goes to the resolver as its A-label.
        server.host = IDNA.asciiDomain(server.host)
        try checkServer(server)
        let stream: MessageStream
        do { stream = try message.makeStream() } catch { throw SMTPError(.input, error.message) }
        let curl = try CurlLibrary.load()
        let easy = try CurlEasy(curl)
        let state = TransferState(stream: stream, progress: progress)
        // `state` outlives the transfer: it is a local of this function, and perform()
        // returns before the function does.
        let opaque = Unmanaged.passUnretained(state).toOpaque()
        try configure(easy, server: server, message: message)
        try easy.setReadCallback(curlReadCallback, data: opaque)
        try easy.setDebugCallback(curlDebugCallback, data: opaque)
        if progress != nil { try easy.setProgressCallback(curlProgressCallback, data: opaque) }

        let code = withExtendedLifetime(state) { easy.perform() }
        let replies = state.replies
        let refused = replies.recipientReplies.filter { $0.code >= 400 }.map {
            RefusedRecipient(address: $0.address, reply: $0.reply)
        }
        guard code == CURLE_OK else {
            if let streamError = state.streamError { throw SMTPError(.input, streamError.message) }
            var error = classify(code, responseCode: easy.responseCode, reply: replies.lastReply,
                                 refused: refused, detail: easy.errorText(code), server: server)
            if !replies.lastReply.isEmpty { error.reply = replies.lastReply }
            throw error
        }
        let refusedAddresses = Set(refused.map(\.address))
        return SMTPReceipt(
            server: server.address, reply: replies.lastReply,
            accepted: message.recipients.map(\.asciiAddress).filter { !refusedAddresses.contains($0) },
            refused: refused
        )
    }

    /// What is refused before any connection: plain text off loopback, a host that would
    /// change the URL's meaning.
    static func checkServer(_ server: SMTPServer) throws(SMTPError) {
        let hostBytes = Array(server.host.utf8)
        let badHostByte = hostBytes.contains { $0 <= 0x20 || $0 >= 0x7F || "/@?#%\\".utf8.contains($0) }
        if hostBytes.isEmpty || badHostByte {
            let shown = String(server.host.unicodeScalars.map { $0.value < 0x20 ? "?" : Character($0) })
            throw SMTPError(.configuration, "invalid host '\(shown)'")
        }
        guard (1...65535).contains(server.port) else { throw SMTPError(.configuration, "invalid port \(server.port)") }
        if server.security == .none, !server.isLoopback, !server.allowPlaintext {
            throw SMTPError(.configuration,
                            "security=none would send the password and message in plain text to \(server.host); use tls or starttls (or allow-plaintext=true)")
        }
        for value in [server.user, server.password, server.caFile].compactMap({ $0 }) where value.utf8.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) {
            throw SMTPError(.configuration, "user, password or ca-file contains a line break or NUL")
        }
    }

    private static func configure(_ easy: CurlEasy, server: SMTPServer, message: OutgoingMessage) throws(SMTPError) {
        try configureSession(easy, server: server)
        try easy.set(CURLOPT_MAIL_FROM, "<\(message.from.asciiAddress)>")
        try easy.set(CURLOPT_MAIL_RCPT, list: message.recipients.map { "<\($0.asciiAddress)>" })
        // 7.69+: go on when some recipients are refused; each is named in the receipt.
        _ = easy.trySet(mr_curlopt_mail_rcpt_allowfails(), 1)
        try easy.set(CURLOPT_UPLOAD, 1)
    }

    /// What every SMTP session sets, sending or probing: the server, TLS as configured
    /// (verified), the login, the time limits.
    static func configureSession(_ easy: CurlEasy, server: SMTPServer) throws(SMTPError) {
        let scheme = server.security == .tls ? "smtps" : "smtp"
        let host = server.host.contains(":") && !server.host.hasPrefix("[") ? "[\(server.host)]" : server.host
        try easy.set(CURLOPT_URL, "\(scheme)://\(host):\(server.port)")
        // Only SMTP: a URL can never make this handle speak another protocol.
        if !easy.trySet(mr_curlopt_protocols_str(), "smtp,smtps") {
            try easy.set(mr_curlopt_protocols(), mr_curl_proto_smtp_smtps())
        }
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_USE_SSL, server.security == .starttls ? mr_curl_use_ssl_all() : 0)
        try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = server.caFile {
            // CAINFO replaces the bundle; CAPATH keeps the system's anchors as well.
            try easy.set(CURLOPT_CAINFO, caFile)
            try easy.set(CURLOPT_CAPATH, "/etc/ssl/certs")
        }
        if let user = server.user {
            try easy.set(CURLOPT_USERNAME, user)
            try easy.set(CURLOPT_PASSWORD, server.password ?? "")
            // AUTH PLAIN with the initial response: one round trip less.
            try easy.set(CURLOPT_SASL_IR, 1)
        }
        try easy.set(CURLOPT_CONNECTTIMEOUT, server.connectTimeout)
        try easy.set(CURLOPT_SERVER_RESPONSE_TIMEOUT, server.stallTimeout)
        try easy.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try easy.set(CURLOPT_LOW_SPEED_TIME, server.stallTimeout)
    }
}
