import Foundation

/// A real Postfix submission server on 127.0.0.1 (Resources/postfix_submission.py): STARTTLS
/// required (`smtpd_tls_security_level = encrypt`), AUTH through a throwaway Dovecot auth
/// socket, delivery into a Maildir, recipients answered 450 or 550 as asked. Its own
/// configuration, queue and data live in `directory`, never the machine's. Started on a free
/// port for one test; released, it is stopped and waited for (not one of its processes is
/// left) and its directory removed. Needs root and Debian's postfix and dovecot-core.
public final class PostfixSubmissionServer: @unchecked Sendable {
    public let port: Int
    public let directory: URL
    /// The detached supervisor (not our child: the launcher has exited).
    private let process: ProcessReference

    /// `user`: the one login AUTH accepts, `nil` for a server that offers no AUTH.
    /// `sizeLimit`: `message_size_limit`, announced as SIZE (Postfix's default when `nil`,
    /// 8,000,000 here). `refuse`: answered 550; `deferred`: answered 450.
    public init(
        certificate: TestCertificates.Pair, user: (name: String, password: String)? = ("jane", "s3cret-pw"),
        sizeLimit: Int? = nil, refuse: [String] = [], deferred: [String] = []
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("postfix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [resourcePath("postfix_submission.py"), "--dir", directory.path,
                         "--cert", certificate.cert, "--key", certificate.key]
        if let user { arguments += ["--user", "\(user.name):\(user.password)"] } else { arguments.append("--no-auth") }
        if let sizeLimit { arguments += ["--size-limit", String(sizeLimit)] }
        for address in refuse { arguments += ["--refuse", address] }
        for address in deferred { arguments += ["--defer", address] }
        let words = try launchDetached(arguments)
        guard words.count == 2, let port = Int(words[0]), let pid = pid_t(words[1]) else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("supervisor.log"), encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: directory)
            throw TestServerError(message: "postfix_submission.py did not start (root, postfix and dovecot-core needed): \(log)")
        }
        self.port = port
        process = ProcessReference(pid)
    }

    deinit {
        // The supervisor kills Postfix and Dovecot and exits once none of their processes
        // is left: only then is the directory theirs no more.
        process.signal(SIGTERM)
        process.waitForExit(seconds: 10)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The messages delivered so far into the Maildir, one file per recipient, in the order
    /// of their names.
    public var delivered: [URL] {
        let new = directory.appendingPathComponent("Maildir/new")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: new.path)) ?? []
        return names.sorted().map { new.appendingPathComponent($0) }
    }

    /// The delivered messages once there are `count` (Postfix delivers a tenth of a second or
    /// so after the end of DATA), or as many as there are after `seconds`.
    public func delivered(count: Int, within seconds: Double = patience) -> [URL] {
        _ = try? waitUntil("Postfix delivered \(count) messages", timeout: seconds) { delivered.count >= count }
        return delivered
    }

    /// smtpd's summary of each session so far, once there are `count` (or as many as there
    /// are after `seconds`): "disconnect from unknown[127.0.0.1] ehlo=2 starttls=1 auth=0/1
    /// commands=3/4", each command with how many succeeded, of how many when not all did.
    /// The first is the start-up probe's (EHLO, STARTTLS, QUIT).
    public func sessionSummaries(count: Int, within seconds: Double = patience) -> [String] {
        func summaries() -> [String] { log.split(separator: "\n").filter { $0.contains(": disconnect from ") }.map(String.init) }
        _ = try? waitUntil("smtpd logged the end of \(count) sessions", timeout: seconds) { summaries().count >= count }
        return summaries()
    }

    /// The mail log (SCRATCH/postfix.log): what smtpd and the queue did.
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("postfix.log"), encoding: .utf8)) ?? ""
    }

    /// For a failed expectation: how the server came up (the supervisor's log) and the end
    /// of its mail log, what a test run leaves of it once the directory is gone.
    public var diagnostics: String {
        let supervisor = (try? String(contentsOf: directory.appendingPathComponent("supervisor.log"), encoding: .utf8)) ?? ""
        let mail = log.split(separator: "\n", omittingEmptySubsequences: false).suffix(40).joined(separator: "\n")
        return "postfix on port \(port), supervisor.log:\n\(supervisor)postfix.log (its end):\n\(mail)"
    }

    /// Whether the mail log says `text` within `seconds`: Postfix's daemons log through
    /// postlogd, which writes a moment after the client has had its answer.
    public func logs(_ text: String, within seconds: Double = patience) -> Bool {
        (try? waitUntil("the mail log says \(text)", timeout: seconds) { log.contains(text) }) != nil
    }

    /// A delivered message as it was submitted: without the lines Postfix puts on top
    /// (Return-Path, X-Original-To, Delivered-To, Received and its continuation lines), its
    /// line ends CRLF again (a Maildir file has LF).
    public static func submitted(_ message: URL) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: message))
        let trace = ["return-path:", "x-original-to:", "delivered-to:", "received:"]
        var start = 0
        var inTrace = false
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            let line = String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
            let continues = inTrace && (line.hasPrefix(" ") || line.hasPrefix("\t"))
            guard continues || trace.contains(where: { line.hasPrefix($0) }) else { break }
            inTrace = true
            start = end + 1
        }
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count - start) * 102 / 100)
        for byte in bytes[start...] {
            if byte == 0x0A { out.append(0x0D) }
            out.append(byte)
        }
        return out
    }
}

