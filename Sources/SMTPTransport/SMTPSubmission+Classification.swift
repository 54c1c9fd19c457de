internal import CCurl
import MailtoCore

extension SMTPSubmission {
    /// The one place a libcurl result becomes a classified error: the
    /// server's reply code decides when there is one (4xx transient, 5xx permanent);
    /// authentication, STARTTLS and certificates are configuration; the network is transient.
    /// The server's last reply, when there was one, goes with the error. `oversized`: the
    /// message's size and the server's limit (its EHLO's SIZE), when the message is larger.
    /// `detail`: libcurl's words; `stall`: the transfer's own, for a person, when it ended a
    /// session that stalled.
    static func classify(
        _ code: CURLcode, responseCode: Int, reply: String, refused: [RefusedRecipient], detail: String, stall: String? = nil,
        server: SMTPServer, oversized: (size: Int, limit: Int)? = nil
    ) -> SMTPError {
        var error = kindOfFailure(code, responseCode: responseCode, reply: reply, refused: refused, detail: detail, stall: stall,
                                  server: server)
        // RFC 1870 §6, RFC 3463 x.3.4: a server that announced its limit refused a message
        // over it for its size. That is for good (a 452 is about space now, but this
        // message will never fit), and the limit is what the user needs to know.
        let sizeReply = [452, 552].contains(responseCode) || reply.dropFirst(4).hasPrefix("5.3.4") || reply.dropFirst(4).hasPrefix("4.3.4")
        let toRecipients = !refused.isEmpty && reply == refused.last?.reply
        if let oversized, sizeReply, !toRecipients, error.kind != .configuration {
            let (limit, size) = megabytes(oversized.limit, oversized.size)
            error = SMTPError(.permanent, tr("%@ takes messages up to %@; this one is %@: %@", server.address, limit, size, reply), cause: .size)
        }
        if !reply.isEmpty { error.reply = reply }
        return error
    }

    /// The limit of the server's EHLO `SIZE` (RFC 1870 §4); `nil` when it names none (bare
    /// `SIZE`, or `SIZE 0`) or offers no SIZE.
    static func sizeLimit(in capabilities: [String]) -> Int? {
        for line in capabilities {
            let words = line.split(separator: " ")
            guard words.first.map({ String($0).asciiUppercased() }) == "SIZE" else { continue }
            guard words.count > 1, let limit = Int(words[1]), limit > 0 else { return nil }
            return limit
        }
        return nil
    }

    /// `a` and `b` octets in megabytes to a tenth, as a person compares them, or in octets
    /// where those two would read the same.
    static func megabytes(_ a: Int, _ b: Int) -> (String, String) {
        func tenths(_ octets: Int) -> String {
            let tenths = (octets + 50_000) / 100_000
            return tenths % 10 == 0 ? "\(tenths / 10) MB" : "\(tenths / 10).\(tenths % 10) MB"
        }
        let (first, second) = (tenths(a), tenths(b))
        return first == second ? (tr("%@ octets", a), tr("%@ octets", b)) : (first, second)
    }

    private static func kindOfFailure(
        _ code: CURLcode, responseCode: Int, reply: String, refused: [RefusedRecipient], detail: String, stall: String?,
        server: SMTPServer
    ) -> SMTPError {
        let at = server.address
        switch code {
        case CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR:
            return loginFailure(reply: reply, server: server)
        case CURLE_USE_SSL_FAILED:
            return SMTPError(.configuration, tr("%@ does not offer STARTTLS; not sending in plain text", at), cause: .tls)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            return SMTPError(.configuration, tr("the certificate of %@ is not trusted: %@", at, certificateProblem(detail)),
                             cause: .certificate, detail: detail)
        case CURLE_SSL_CONNECT_ERROR:
            return SMTPError(.configuration, tr("no secure connection (TLS) to %@ could be made", at), cause: .tls, detail: detail)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN, CURLE_UNKNOWN_OPTION:
            return SMTPError(.configuration, tr("libcurl cannot send to %@", at), detail: detail)
        default:
            break
        }
        if (400..<600).contains(responseCode) {
            let kind: ErrorKind = responseCode < 500 ? .transient : .permanent
            if !refused.isEmpty, reply == refused.last?.reply {
                let list = refused.map { "\($0.address) (\($0.reply))" }.joined(separator: ", ")
                return SMTPError(kind, tr("%@ refused every recipient: %@", at, list), cause: .recipient)
            }
            return SMTPError(kind, tr("%@ refused the message: %@", at, reply.isEmpty ? String(responseCode) : reply))
        }
        // libcurl's words go in `detail`, not in the sentence: they are English in every
        // locale, and a German notification said "Failed to connect to 127.0.0.1 port 42587
        // after 0 ms: Couldn't connect to server" (rule 10).
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return SMTPError(.transient, tr("the name %@ was not found", server.host), cause: .name, detail: detail)
        case CURLE_COULDNT_CONNECT:
            return SMTPError(.transient, tr("cannot connect to %@", at), cause: .connect, detail: detail)
        case CURLE_OPERATION_TIMEDOUT:
            if let stall { return SMTPError(.transient, tr("%@ timed out: %@", at, stall), cause: .timeout) }
            return SMTPError(.transient, tr("%@ timed out", at), cause: .timeout, detail: detail)
        default:
            return SMTPError(.transient, tr("sending through %@ failed", at), detail: detail)
        }
    }

    /// What OpenSSL's verification said of a certificate (in libcurl's text), in a
    /// person's words for the problems people meet; the whole text is the error's detail.
    static func certificateProblem(_ detail: String) -> String {
        let lowered = detail.asciiLowercased()
        if lowered.contains("certificate has expired") { return tr("it has expired") }
        if lowered.contains("self-signed") || lowered.contains("self signed") { return tr("it is self-signed") }
        if lowered.contains("no alternative certificate subject name matches") || lowered.contains("does not match target host") {
            return tr("it is for another server name")
        }
        if lowered.contains("unable to get local issuer") || lowered.contains("unknown ca") {
            return tr("it is issued by an authority this system does not trust")
        }
        if lowered.contains("not yet valid") { return tr("it is not valid yet") }
        return tr("it could not be verified")
    }
}

extension SMTPSubmission {
    /// libcurl's "login denied": the server refused the login (it answered AUTH with a
    /// 5xx, or with a challenge libcurl hangs up on: XOAUTH2's error challenge, `334` and
    /// a JSON status), or it offered no mechanism libcurl may use for this login (its last
    /// word is then its EHLO's).
    static func loginFailure(reply: String, server: SMTPServer) -> SMTPError {
        let at = server.address
        if reply.hasPrefix("4") {
            // RFC 4954 §6: 454, a temporary failure of the server's own.
            return SMTPError(.transient, tr("%@ cannot log in now: %@", at, reply), cause: .login)
        }
        let answeredLogin = reply.hasPrefix("334") || reply.hasPrefix("5")
        guard answeredLogin else {
            let what = server.bearerToken == nil ? tr("a login mechanism libcurl can use") : tr("XOAUTH2 or OAUTHBEARER")
            return SMTPError(.configuration, tr("%@ offers no %@; the account cannot log in", at, what))
        }
        return refusedCredential(server: server, reply: reply.hasPrefix("5") ? reply : nil)
    }

    /// The server refused the password or the token (its words, when they say more).
    static func refusedCredential(server: SMTPServer, reply: String?) -> SMTPError {
        let at = server.address
        let credential = server.bearerToken == nil ? tr("the user name or password") : server.user.map { tr("the sign-in token of %@", $0) } ?? tr("the sign-in token of the account")
        var error = SMTPError(.configuration, reply.map { tr("%@ refused %@: %@", at, credential, $0) } ?? tr("%@ refused %@", at, credential),
                              cause: .login)
        error.refusedLogin = true
        return error
    }
}
