import Foundation

/// A real SMTP server on 127.0.0.1 (Resources/smtp_server.py, Debian's aiosmtpd), started on
/// a free port for one test and killed when released. Received messages are files in
/// `directory`: `N.eml` as received, `N.json` with the envelope.
public final class SMTPTestServer: @unchecked Sendable {
    public enum Mode: String, Sendable { case plain, starttls, tls, silent }
    /// A command the server never answers, nor anything after it (`--silent-after`);
    /// `endOfMessage`: the end of the message (its `.` line), the message not kept.
    public enum Stage: String, Sendable {
        case ehlo = "EHLO", mail = "MAIL", rcpt = "RCPT", data = "DATA", endOfMessage = "END"
    }

    public let port: Int
    public let directory: URL
    /// The detached server (not our child: the launcher has exited).
    private let process: ProcessReference

    public init(
        _ mode: Mode = .plain, certificate: TestCertificates.Pair? = nil, auth: (user: String, password: String)? = nil,
        refuse: [String] = [], deferred: [String] = [], dataDelay: Double = 0, dataReply: String? = nil,
        silentAfter: Stage? = nil, port: Int? = nil, oauthTokens: [(user: String, token: String)] = [],
        mechanisms: String? = nil, address: String? = nil
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [resourcePath("smtp_server.py"), "--mode", mode.rawValue, "--outdir", directory.path]
        if let certificate { arguments += ["--cert", certificate.cert, "--key", certificate.key] }
        if let auth { arguments += ["--auth", "\(auth.user):\(auth.password)"] }
        // OAuth 2.0 bearer tokens it takes, and the SASL mechanisms it offers, in order.
        for pair in oauthTokens { arguments += ["--oauth-token", "\(pair.user):\(pair.token)"] }
        if let mechanisms { arguments += ["--mechanisms", mechanisms] }
        for address in refuse { arguments += ["--refuse", address] }
        for address in deferred { arguments += ["--defer", address] }
        if dataDelay > 0 { arguments += ["--data-delay", String(dataDelay)] }
        if let dataReply { arguments += ["--data-reply", dataReply] }
        if let silentAfter { arguments += ["--silent-after", silentAfter.rawValue] }
        if let port { arguments += ["--port", String(port)] }
        if let address { arguments += ["--address", address] }
        let words = try ServerForker.shared.launch(arguments)
        guard words.count == 2, let port = Int(words[0]), let pid = pid_t(words[1]) else {
            throw TestServerError(message: "smtp_server.py did not start (is python3-aiosmtpd installed?)")
        }
        self.port = port
        process = ProcessReference(pid)
    }

    deinit {
        process.signal(SIGTERM)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Takes the server down now (its port stays free for one brought up with `port:`);
    /// returns when it has exited (its sockets closed), reaped or not: it is not our child.
    public func stop() {
        process.signal(SIGKILL)
        process.waitForExit(seconds: 5)
    }

    /// How many SMTP connections the server accepted so far (connections.log).
    public var connections: Int { lines(in: "connections.log").count }

    /// When each connection was accepted (`Date`'s clock), in order.
    public var acceptedTimes: [Date] { times(in: "accepted.log") }

    /// When the client closed each connection, in order: where its wait on this server ended,
    /// before it queued, reported and exited (all of which a loaded machine slows).
    public var closedTimes: [Date] { times(in: "closed.log") }

    /// When the server last spoke before each silence of a `silentAfter:` server, in order:
    /// a client's wait on that silence began no earlier (it heard that last word, or sent
    /// the command that went unanswered, after it).
    public var silentSince: [Date] { times(in: "silence.log") }

    /// What the client said while the server kept silent (a `.silent` server, or one
    /// `silentAfter:` a stage), line by line: a client that gave up says nothing more (no
    /// `QUIT` to wait on). Complete once the server has seen the connection close.
    public var heardInSilence: [String] { lines(in: "heard.log").map(String.init) }

    /// The first connection's close, once the server has seen it: the client may have ended
    /// before the server's loop got to it. `nil` when none came within `timeout` seconds.
    public func firstClose(within timeout: Double = patience) -> Date? {
        _ = try? waitUntil("the server saw a connection close", timeout: timeout) { !closedTimes.isEmpty }
        return closedTimes.first
    }

    private func times(in log: String) -> [Date] {
        lines(in: log).compactMap { Double($0).map(Date.init(timeIntervalSince1970:)) }
    }

    /// The lines of one of the server's logs in `directory`, none before it is written.
    private func lines(in log: String) -> [Substring] {
        let text = (try? String(contentsOf: directory.appendingPathComponent(log), encoding: .utf8)) ?? ""
        return text.split(separator: "\n")
    }

    /// The Message-ID of each received message, in order, as Python's `email` package
    /// (policy=default) reads it: an independent count of what arrived.
    public func receivedMessageIDs() throws -> [String] {
        try TestSupport.receivedMessageIDs(in: directory)
    }

    /// The messages received so far, in order.
    public var messages: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".eml") }
            .sorted { Int($0.dropLast(4)) ?? 0 < Int($1.dropLast(4)) ?? 0 }
            .map { directory.appendingPathComponent($0) }
    }

    /// Each AUTH exchange, in order (see smtp_server.py).
    public var authLog: [[String: Any]] { lines(in: "auth.log").compactMap { try? jsonObject(String($0)) } }

    /// `mail_from`, `rcpt_tos`, `auth`, `mechanism`, `tls` of message `message` (an `.eml` URL).
    public func envelope(of message: URL) throws -> [String: Any] {
        let url = message.deletingPathExtension().appendingPathExtension("json")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
    }
}

/// The Message-ID of each message `smtp_server.py` wrote to `directory` (`N.eml`), in
/// order, as Python's `email` package (policy=default) reads it.
public func receivedMessageIDs(in directory: URL) throws -> [String] {
    let script = """
        import email, email.policy, json, os, sys
        d = sys.argv[1]
        names = sorted((n for n in os.listdir(d) if n.endswith(".eml")), key=lambda n: int(n[:-4]))
        ids = []
        for n in names:
            with open(os.path.join(d, n), "rb") as f:
                ids.append(str(email.message_from_binary_file(f, policy=email.policy.default)["Message-ID"]))
        print(json.dumps(ids))
        """
    let result = try run("/usr/bin/python3", ["-c", script, directory.path])
    guard result.status == 0, let ids = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String] else {
        throw TestServerError(message: "reading Message-IDs failed: \(result)")
    }
    return ids
}

public struct TestServerError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// Certificates made once per test process with openssl (Resources/make_certs.sh): a private
/// CA, a server certificate it signed, and an expired one it signed.
public final class TestCertificates: Sendable {
    public struct Pair: Sendable {
        public var cert: String
        public var key: String

        public init(cert: String, key: String) {
            self.cert = cert
            self.key = key
        }
    }

    public let caFile: String
    public let server: Pair
    public let expired: Pair

    public static let shared: Result<TestCertificates, TestServerError> = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("certs-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let result = try run("/bin/sh", [resourcePath("make_certs.sh"), directory.path])
            guard result.status == 0 else { return .failure(TestServerError(message: "make_certs.sh failed: \(result)")) }
        } catch {
            return .failure(TestServerError(message: "make_certs.sh: \(error)"))
        }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        return .success(TestCertificates(
            caFile: path("ca.pem"), server: Pair(cert: path("server.pem"), key: path("server-key.pem")),
            expired: Pair(cert: path("expired.pem"), key: path("expired-key.pem"))))
    }()

    private init(caFile: String, server: Pair, expired: Pair) {
        self.caFile = caFile
        self.server = server
        self.expired = expired
    }
}

/// What Python's `email` package (policy=default) reads in a received message
/// (Resources/check_message.py): an independent judge of what mailto-route wrote.
/// `utf8Headers`: header fields in UTF-8 (RFC 6532), read as text.
public func pythonView(of message: URL, utf8Headers: Bool = false) throws -> [String: Any] {
    let result = try run("/usr/bin/python3", [resourcePath("check_message.py"), message.path] + (utf8Headers ? ["--utf8-headers"] : []))
    guard result.status == 0,
          let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    else { throw TestServerError(message: "check_message.py failed: \(result)") }
    return object
}

/// What Python's `email` found wrong with a message as it went on the wire, from its
/// `pythonView(of:)`: defects of the message or of a header field (`InvalidDateDefect` for
/// `Date: So, 06 Dez 2026`), a `Date` it could not parse, a header block that is not ASCII
/// (`asciiHeaders`: a message sent without SMTPUTF8). Empty when there is nothing to say.
public func wireProblems(in view: [String: Any], asciiHeaders: Bool = true) -> [String] {
    var problems = (view["defects"] as? [String] ?? ["no defects list"]) + (view["headerDefects"] as? [String] ?? ["no header defects list"])
    if !(view["date"] is String) {
        problems.append("Date not parsed: \((view["headers"] as? [String: Any])?["Date"] ?? "absent")")
    }
    if asciiHeaders, view["headerASCII"] as? Bool != true { problems.append("the header block is not ASCII") }
    return problems
}

/// The SHA-256 of `data` in lower-case hex, as coreutils' `sha256sum` computes it, to
/// compare with the `sha256` of a part in `pythonView(of:)`; empty when it cannot run.
public func sha256(_ data: Data) -> String {
    let result = try? run("/usr/bin/sha256sum", ["-"], stdin: data)
    return String(result?.stdout.prefix(64) ?? "")
}

/// A file in Tests/TestSupport/Resources.
public func resourcePath(_ name: String) -> String {
    packageRoot.appendingPathComponent("Tests/TestSupport/Resources").appendingPathComponent(name).path
}

/// Runs one of the Resources scripts that start a server detached (so that it holds none of
/// this process's descriptors) and print what the test needs on one line; returns its words.
func launchDetached(_ arguments: [String]) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let line = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return line.split(whereSeparator: \.isWhitespace).map(String.init)
}

/// Resources/server_forker.py, one per test process, started by the first server asked of it:
/// a server started through it is forked from a Python that has its imports already, where a
/// fresh python3 spent some 90 ms of CPU on them each time. Its requests go one at a time.
final class ServerForker: @unchecked Sendable {
    static let shared = ServerForker()

    private let lock = NSLock()
    /// The forker, and the pipes of its requests and answers: held for the life of the test
    /// process, whose end closes them, and the forker ends.
    private var process: Process?
    private var requests: Pipe?
    private var answers: Pipe?

    /// What the server script (`arguments[0]`, run with the rest) printed, as words; none
    /// when it did not start.
    func launch(_ arguments: [String]) throws -> [String] {
        lock.lock()
        defer { lock.unlock() }
        if process == nil { try start() }
        let request = try JSONSerialization.data(withJSONObject: arguments) + Data("\n".utf8)
        try requests?.fileHandleForWriting.write(contentsOf: request)
        let answer = answers?.fileHandleForReading.fileDescriptor ?? -1
        var line = Data()
        var byte: UInt8 = 0
        while true {
            let count = read(answer, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { throw TestServerError(message: "server_forker.py ended (starting \(arguments[0]))") }
            if byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
    }

    private func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [resourcePath("server_forker.py")]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        requests = input
        answers = output
    }
}
