internal import CCurl
import MailtoCore

extension SMTPSubmission {
    /// The one place a libcurl result becomes a classified error: the
    /// server's reply code decides when there is one (4xx transient, 5xx permanent);
    /// authentication, STARTTLS and certificates are configuration; the network is transient.
    /// The server's last reply, when there was one, goes with the error. `oversized`: the
    /// message's size and the server's limit (its EHLO's SIZE), when the message is larger.
    static func classify(
        _ code: CURLcode, responseCode: Int, reply: String, refused: [RefusedRecipient], detail: String, server: SMTPServer,
        oversized: (size: Int, limit: Int)? = nil
    ) -> SMTPError {
        var error = kindOfFailure(code, responseCode: responseCode, reply: reply, refused: refused, detail: detail, server: server)
        // RFC 1870 §6, RFC 3463 x.3.4: a server that announced its limit refused a message
        // over it for its size. That is for good (a 452 is about space now, but this
        // message will never fit), and the limit is what the user needs to know.
        let sizeReply = [452, 552].contains(responseCode) || reply.dropFirst(4).hasPrefix("5.3.4") || reply.dropFirst(4).hasPrefix("4.3.4")
        let toRecipients = !refused.isEmpty && reply == refused.last?.reply
        if let oversized, sizeReply, !toRecipients, error.kind != .configuration {
            let (limit, size) = megabytes(oversized.limit, oversized.size)
            error = SMTPError(.permanent, "\(server.address) takes messages up to \(limit); this one is \(size): \(reply)")
        }
        if !reply.isEmpty { error.reply = reply }
        return error
    }

    /// The limit of the server's EHLO `SIZE` (RFC 1870 §4); `nil` when it names none (bare
    /// `SIZE`, or `SIZE 0`) or offers no SIZE.
    static func sizeLimit(in capabilities: [String]) -> Int? {
        for line in capabilities {
            let words = line.split(separator: " ")
            guard words.first?.uppercased() == "SIZE" else { continue }
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
        return first == second ? ("\(a) octets", "\(b) octets") : (first, second)
    }

    private static func kindOfFailure(
        _ code: CURLcode, responseCode: Int, reply: String, refused: [RefusedRecipient], detail: String, server: SMTPServer
    ) -> SMTPError {
        let at = server.address
        switch code {
        case CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR:
            return loginFailure(reply: reply, server: server)
        case CURLE_USE_SSL_FAILED:
            return SMTPError(.configuration, "\(at) does not offer STARTTLS; not sending in plain text")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            return SMTPError(.configuration, "the certificate of \(at) is not trusted: \(detail)")
        case CURLE_SSL_CONNECT_ERROR:
            return SMTPError(.configuration, "TLS with \(at) failed: \(detail)")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN, CURLE_UNKNOWN_OPTION:
            return SMTPError(.configuration, "libcurl cannot send to \(at): \(detail)")
        default:
            break
        }
        if (400..<600).contains(responseCode) {
            let kind: ErrorKind = responseCode < 500 ? .transient : .permanent
            if !refused.isEmpty, reply == refused.last?.reply {
                let list = refused.map { "\($0.address) (\($0.reply))" }.joined(separator: ", ")
                return SMTPError(kind, "\(at) refused every recipient: \(list)")
            }
            return SMTPError(kind, "\(at) refused the message: \(reply.isEmpty ? String(responseCode) : reply)")
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return SMTPError(.transient, "cannot resolve \(server.host): \(detail)")
        case CURLE_COULDNT_CONNECT:
            return SMTPError(.transient, "cannot connect to \(at): \(detail)")
        case CURLE_OPERATION_TIMEDOUT:
            return SMTPError(.transient, "\(at) timed out: \(detail)")
        default:
            return SMTPError(.transient, "sending through \(at) failed: \(detail)")
        }
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
            return SMTPError(.transient, "\(at) cannot log in now: \(reply)")
        }
        let answeredLogin = reply.hasPrefix("334") || reply.hasPrefix("5")
        guard answeredLogin else {
            let what = server.bearerToken == nil ? "a login mechanism libcurl can use" : "XOAUTH2 or OAUTHBEARER"
            return SMTPError(.configuration, "\(at) offers no \(what); the account cannot log in")
        }
        let credential = server.bearerToken == nil ? "the user name or password" : "the sign-in token of \(server.user ?? "the account")"
        var error = SMTPError(.configuration, "\(at) refused \(credential)" + (reply.hasPrefix("5") ? ": \(reply)" : ""))
        error.refusedLogin = true
        return error
    }
}
