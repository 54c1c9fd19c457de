import Foundation

/// A real Dovecot IMAP server on 127.0.0.1 (Resources/imap_server.py): implicit TLS and
/// STARTTLS with the test CA's certificate, one user in a passwd-file, a `Drafts` mailbox
/// marked `\Drafts`, and with `token` XOAUTH2 checked by Dovecot's oauth2 passdb against a
/// loopback introspection endpoint. Its configuration and mail live in `directory`; released,
/// it is stopped and waited for and its directory removed. Needs root, dovecot-core and
/// dovecot-imapd.
public final class DovecotIMAPServer: @unchecked Sendable {
    /// Implicit TLS.
    public let imapsPort: Int
    /// STARTTLS.
    public let imapPort: Int
    public let directory: URL
    public let user: String
    private let process: ProcessReference

    public init(certificate: TestCertificates.Pair, user: String = "jane@example.org", password: String = "s3cret-imap",
                token: String? = nil) throws {
        // Short: Dovecot's sockets live below it (a Unix socket path has at most 107 bytes).
        directory = URL(fileURLWithPath: "/tmp/imap-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [resourcePath("imap_server.py"), "--dir", directory.path, "--cert", certificate.cert,
                         "--key", certificate.key, "--user", "\(user):\(password)"]
        if let token { arguments += ["--token", token] }
        let words = try launchDetached(arguments)
        guard words.count == 3, let imapsPort = Int(words[0]), let imapPort = Int(words[1]), let pid = pid_t(words[2]) else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("supervisor.log"), encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: directory)
            throw TestServerError(message: "imap_server.py did not start (root, dovecot-core and dovecot-imapd needed): \(log)")
        }
        self.imapsPort = imapsPort
        self.imapPort = imapPort
        self.user = user
        process = ProcessReference(pid)
    }

    deinit {
        process.signal(SIGTERM)
        process.waitForExit(seconds: 10)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The messages in the Drafts mailbox, as Dovecot stored them (Maildir files, whose
    /// names end in `:2,` and the flags: `D` for `\Draft`).
    public var drafts: [URL] { messages(in: ".Drafts") }

    /// The messages in the INBOX.
    public var inbox: [URL] { messages(in: "") }

    private func messages(in folder: String) -> [URL] {
        let maildir = directory.appendingPathComponent("home/\(user)/Maildir").appendingPathComponent(folder)
        return ["new", "cur"].flatMap { sub -> [URL] in
            let path = maildir.appendingPathComponent(sub)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path.path)) ?? []
            return names.sorted().map { path.appendingPathComponent($0) }
        }
    }

    /// Dovecot's log: each login, and why one failed.
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("dovecot.log"), encoding: .utf8)) ?? ""
    }

    /// What the introspection endpoint answered, one line a request (`active=True`).
    public var introspections: [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("introspection.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }
}
