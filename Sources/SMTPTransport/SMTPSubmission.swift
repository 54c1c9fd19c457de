internal import CCurl
import MIMEMessage
import MailtoCore

/// How mailto-route speaks SMTP with libcurl: `smtp`/`smtps` only, TLS verified, one RCPT
/// per recipient. `SMTPSession` sends; this holds what it and the probe share.
public enum SMTPSubmission {
    /// What is refused before any connection: plain text off loopback, a host that would
    /// change the URL's meaning.
    static func checkServer(_ server: SMTPServer) throws(SMTPError) {
        let hostBytes = Array(server.host.utf8)
        let badHostByte = hostBytes.contains { $0 <= 0x20 || $0 >= 0x7F || "/@?#%\\".utf8.contains($0) }
        if hostBytes.isEmpty || badHostByte {
            throw SMTPError(.configuration, tr("invalid host '%@'", server.host.visible))
        }
        guard (1...65535).contains(server.port) else { throw SMTPError(.configuration, tr("invalid port %@", server.port)) }
        if let refusal = server.plainTextRefusal { throw SMTPError(.configuration, refusal) }
        for value in [server.user, server.password, server.bearerToken, server.caFile].compactMap({ $0 }) where value.utf8.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) {
            throw SMTPError(.configuration, tr("user, password, token or ca-file contains a line break or NUL"))
        }
    }

    /// The first libcurl that declares SMTPUTF8 (7.69.0, `version_num`).
    static let smtpUTF8Libcurl = 0x07_45_00

    /// Why `address`, whose local part is not ASCII, cannot be sent (RFC 6531): this
    /// libcurl cannot declare SMTPUTF8, or the server (`capabilities`, its EHLO) does not
    /// offer it; `nil` when both can. `capabilities` `nil`: the server is not asked.
    static func smtpUTF8Refusal(_ address: String, libcurl: (number: Int, text: String), capabilities: [String]?,
                                server: String) -> String? {
        if libcurl.number < smtpUTF8Libcurl {
            return tr("%@ needs SMTPUTF8, which libcurl %@ cannot declare (7.69 and later can)", address, libcurl.text)
        }
        if let capabilities, !capabilities.contains(where: { $0.asciiUppercased() == "SMTPUTF8" }) {
            return tr("%@ needs SMTPUTF8, which %@ does not offer", address, server)
        }
        return nil
    }

    /// What stays the same for every message sent through `server`; the envelope is set
    /// per transfer (`SMTPSession.transfer`).
    static func configure(_ easy: CurlEasy, server: SMTPServer) throws(SMTPError) {
        try configureSession(easy, server: server)
        // 7.69+: go on when some recipients are refused; each is named in the receipt.
        _ = easy.trySet(mr_curlopt_mail_rcpt_allowfails(), 1)
        try easy.set(CURLOPT_UPLOAD, 1)
    }

    /// The protocol a session speaks: SMTP to send, IMAP to store a draft (`IMAPDraftStore`).
    enum MailProtocol {
        case smtp, imap

        /// The URL scheme for `security`: implicit TLS has its own.
        func scheme(_ security: SMTPServer.Security) -> String {
            switch self {
            case .smtp: security == .tls ? "smtps" : "smtp"
            case .imap: security == .tls ? "imaps" : "imap"
            }
        }

        /// `CURLOPT_PROTOCOLS_STR`, and the bits of `CURLOPT_PROTOCOLS` for an older libcurl.
        var allowed: (names: String, bits: Int) {
            switch self {
            case .smtp: ("smtp,smtps", mr_curl_proto_smtp_smtps())
            case .imap: ("imap,imaps", mr_curl_proto_imap_imaps())
            }
        }
    }

    /// What every session sets, sending, probing or storing a draft: the server, TLS as
    /// configured (verified), the login, the time limits.
    static func configureSession(_ easy: CurlEasy, server: SMTPServer, speaking mailProtocol: MailProtocol = .smtp) throws(SMTPError) {
        let host = server.host.contains(":") && !server.host.hasPrefix("[") ? "[\(server.host)]" : server.host
        try easy.set(CURLOPT_URL, "\(mailProtocol.scheme(server.security))://\(host):\(server.port)")
        // Only this protocol: a URL can never make this handle speak another.
        if !easy.trySet(mr_curlopt_protocols_str(), mailProtocol.allowed.names) {
            try easy.set(mr_curlopt_protocols(), mailProtocol.allowed.bits)
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
        try configureLogin(easy, server: server)
        try easy.set(CURLOPT_CONNECTTIMEOUT, server.connectTimeout)
        // `stallTimeout` is kept by the progress callback (`DialogueState`): whatever the
        // stage, a session where nothing moved for that long ends then, and its connection
        // is dropped without a QUIT to wait on. libcurl's own limits are only a backstop, a
        // second later: its limit on a reply is checked up to a second late and, kept
        // first, ended the session with a QUIT that waited as long again.
        try easy.set(CURLOPT_SERVER_RESPONSE_TIMEOUT, server.stallTimeout + 1)
        try easy.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try easy.set(CURLOPT_LOW_SPEED_TIME, server.stallTimeout + 1)
    }
}
