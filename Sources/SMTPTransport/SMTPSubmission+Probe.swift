#if canImport(Glibc)
import Glibc
#endif
internal import CCurl
import MailtoCore
import MIMEMessage

/// What a live test of an account's server found: how far the session got, and what the
/// server offered. Never holds the password.
public struct SMTPProbe: Sendable, Equatable {
    /// `host:port`.
    public var server: String
    /// The server greeted (`220`): a connection was made and it speaks SMTP.
    public var connected: Bool
    /// The session was encrypted: implicit TLS that got as far as the greeting, or
    /// STARTTLS answered with 220.
    public var encrypted: Bool
    /// The extensions of the last EHLO reply (`SIZE 10240000`, `AUTH PLAIN LOGIN`, ...).
    public var capabilities: [String]
    /// `true`/`false` when a login was tried; `nil` when the account has no user.
    public var authenticated: Bool?
    /// Why the session did not get to its end, `nil` when it did.
    public var error: SMTPError?
    /// How long it took, in milliseconds.
    public var milliseconds: Int

    /// Every step that was tried went through.
    public var succeeded: Bool { error == nil }
}

extension SMTPSubmission {
    /// A live test of `server`, sending nothing: connect, TLS as configured (verified),
    /// EHLO, AUTH when there is a user, then `NOOP` and `QUIT`. libcurl with no recipients
    /// and no upload runs a custom command instead of a mail transaction; the EHLO lines
    /// and the replies come from the same debug callback as a send's. Answers within
    /// `milliseconds` (the connection, every reply and the whole session are bounded),
    /// also when the server cannot be reached or never says a word.
    public static func probe(_ server: SMTPServer, within milliseconds: Int = 4000) -> SMTPProbe {
        var server = server
        server.host = IDNA.asciiDomain(server.host)
        let seconds = max(1, (milliseconds + 999) / 1000)
        server.connectTimeout = min(server.connectTimeout, seconds)
        server.stallTimeout = min(server.stallTimeout, seconds)
        var probe = SMTPProbe(server: server.address, connected: false, encrypted: false, capabilities: [],
                              authenticated: nil, error: nil, milliseconds: 0)
        let started = MonotonicClock.milliseconds
        probe = session(server, milliseconds: milliseconds, probe: probe)
        probe.milliseconds = MonotonicClock.milliseconds - started
        return probe
    }

    /// A session that sends no message: connect (or take the connection kept), then `NOOP`.
    /// The handle must not be set to upload (libcurl would start a mail transaction); what
    /// the server says is in `state`.
    static func noop(_ easy: CurlEasy, state: DialogueState) throws(SMTPError) -> CURLcode {
        defer { easy.clearTransferData() }
        // Every server must take NOOP (RFC 5321 §4.5.1); HELP, libcurl's default, is optional.
        try easy.set(CURLOPT_CUSTOMREQUEST, "NOOP")
        try easy.setWriteCallback(curlDiscardCallback)
        let opaque = Unmanaged.passUnretained(state).toOpaque()
        try easy.setDebugCallback(curlDebugCallback, data: opaque)
        try easy.setProgressCallback(curlProgressCallback, data: opaque)
        return withExtendedLifetime(state) { easy.perform(wakeAt: { state.deadline }) }
    }

    /// The session of `probe`, filling in what it found.
    private static func session(_ server: SMTPServer, milliseconds: Int, probe: SMTPProbe) -> SMTPProbe {
        var probe = probe
        let state = DialogueState(patience: server.stallTimeout)
        let easy: CurlEasy
        let code: CURLcode
        do throws(SMTPError) {
            try checkServer(server)
            easy = try CurlEasy(try CurlLibrary.load())
            try configureSession(easy, server: server)
            try easy.set(CURLOPT_TIMEOUT_MS, max(1, milliseconds))
            code = try noop(easy, state: state)
        } catch {
            probe.error = error
            return probe
        }
        let replies = state.replies
        probe.connected = replies.greeting != nil
        probe.encrypted = probe.connected && (server.security == .tls || replies.startedTLS)
        probe.capabilities = replies.capabilities
        if server.user != nil, let authCode = replies.authCode {
            probe.authenticated = authCode == 235
        } else if server.user != nil, code == CURLE_OK {
            // A server that offers no AUTH lets libcurl go on without logging in.
            probe.authenticated = false
        }
        if code != CURLE_OK {
            let (reason, detail, stall) = state.failure(code, of: easy)
            probe.error = classify(reason, responseCode: easy.responseCode, reply: replies.lastReply, refused: [],
                                   detail: detail, stall: stall, server: server)
        } else if server.user != nil, probe.authenticated != true {
            probe.error = SMTPError(.configuration, tr("%@ offers no AUTH; the account's user cannot log in", server.address))
        }
        return probe
    }
}
