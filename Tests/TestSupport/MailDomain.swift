import Foundation

/// A mail domain of a test's own, on a loopback address of its own (127.X.Y.Z): its DNS
/// server (Servers/dns-server.py on port 53, with the SRV records given), the host names
/// that resolve to that address, a certificate for them signed by the test CA, and, when
/// asked, its autoconfig server on port 443 (Servers/autoconfig-server.py). Submission
/// servers are `SMTPTestServer`s started with `address:` and `certificate:` of this domain.
///
/// mailto-route runs in it through `run`: in a mount namespace of its own (`unshare -m`,
/// the tests are root) where `/etc/hosts` holds the domain's names and `/etc/resolv.conf`
/// names its DNS server, so that glibc's `getaddrinfo` (libcurl's: libcurl is loaded with
/// RTLD_DEEPBIND, so nss_wrapper's `getaddrinfo` never reaches it, seen with
/// LD_DEBUG=bindings) finds the names, and a name the domain does not have is NXDOMAIN
/// from loopback, never a question to the real network; SRV questions (GIO's resolver,
/// `res_query` in a thread) go through Debian's resolv_wrapper (LD_PRELOAD) to the same
/// server. Stopped when released.
public final class MailDomain: @unchecked Sendable {
    public let domain: String
    public let address: String
    public let directory: URL
    public let certificate: TestCertificates.Pair
    public let caFile: String
    private let hostsFile: URL
    private let resolvConf: URL
    private var processes: [ProcessReference] = []

    /// `srv`: records such as `("submissions", "mail.example.test", 465)`; `names`: the host
    /// names that resolve to `address` (the certificate holds them too).
    public init(_ domain: String = "example.test", srv: [(service: String, host: String, port: Int)] = [],
                names: [String] = []) throws {
        self.domain = domain
        address = "127.\(Int.random(in: 100...250)).\(Int.random(in: 1...250)).\(Int.random(in: 2...250))"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mail-domain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = try TestCertificates.shared.get()
        caFile = certificates.caFile
        let caKey = URL(fileURLWithPath: certificates.caFile).deletingLastPathComponent().appendingPathComponent("ca-key.pem").path
        let certificateNames = Array(Set(names + [domain, "autoconfig.\(domain)"])).sorted()
        let made = try TestSupport.run("/usr/bin/python3", [
            packageRoot.appendingPathComponent("Tests/TestSupport/Servers/autoconfig-server.py").path,
            "--certificate-only", "--ca", certificates.caFile, "--ca-key", caKey, "--address", address,
            "--outdir", directory.path,
        ] + certificateNames.flatMap { ["--name", $0] })
        let paths = made.stdout.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard made.status == 0, paths.count == 2 else { throw TestSupportError("no certificate for \(domain): \(made)") }
        certificate = TestCertificates.Pair(cert: paths[0], key: paths[1])

        let records = directory.appendingPathComponent("records")
        try srv.map { "SRV _\($0.service)._tcp.\(domain) \($0.host) \($0.port)\n" }.joined()
            .appending("TXT \(domain) a test domain\n")
            .write(to: records, atomically: true, encoding: .utf8)
        hostsFile = directory.appendingPathComponent("hosts")
        let address = address
        try (["127.0.0.1 localhost"] + names.map { "\(address) \($0)" }).joined(separator: "\n").appending("\n")
            .write(to: hostsFile, atomically: true, encoding: .utf8)
        resolvConf = directory.appendingPathComponent("resolv.conf")
        let dns = try launchDetached([
            packageRoot.appendingPathComponent("Tests/TestSupport/Servers/dns-server.py").path,
            "--address", address, "--records", records.path, "--resolv-conf", resolvConf.path, "--outdir", directory.path,
        ])
        guard dns.count == 2, let pid = pid_t(dns[1]) else { throw TestSupportError("dns-server.py did not start: \(dns)") }
        processes.append(ProcessReference(pid))
    }

    /// Where the autoconfig file is served from.
    public enum AutoconfigPlace: String, Sendable { case autoconfig, wellKnown = "well-known", both }

    /// Starts the domain's autoconfig server on `address`:443, listing `outgoing`
    /// (`HOST:PORT:SOCKETTYPE`, SOCKETTYPE `SSL`, `STARTTLS` or `plain`).
    public func serveAutoconfig(outgoing: [String], at place: AutoconfigPlace = .both, delay: Double = 0) throws {
        let words = try launchDetached([
            packageRoot.appendingPathComponent("Tests/TestSupport/Servers/autoconfig-server.py").path,
            "--address", address, "--port", "443", "--cert", certificate.cert, "--key", certificate.key,
            "--domain", domain, "--serve", place.rawValue, "--outdir", directory.path, "--delay", String(delay),
        ] + outgoing.flatMap { ["--outgoing", $0] })
        guard words.count == 2, let pid = pid_t(words[1]) else { throw TestSupportError("autoconfig-server.py did not start: \(words)") }
        processes.append(ProcessReference(pid))
    }

    /// The DNS questions asked so far (queries.log), as `TYPE NAME`.
    public var queries: [String] { jsonLines("queries.log").compactMap { line in
        (line["type"] as? String).flatMap { type in (line["name"] as? String).map { "\(type) \($0)" } }
    } }

    /// The autoconfig server's requests so far (requests.log), as `HOST PATH?QUERY`.
    public var autoconfigRequests: [String] { jsonLines("requests.log").compactMap { line in
        guard let path = line["path"] as? String else { return nil }
        let query = (line["query"] as? String).map { $0.isEmpty ? "" : "?\($0)" } ?? ""
        return "\(line["host"] as? String ?? "") \(path)\(query)"
    } }

    /// TLS handshakes the autoconfig server refused (requests.log's `tls_error` lines).
    public var autoconfigTLSErrors: [String] { jsonLines("requests.log").compactMap { $0["tls_error"] as? String } }

    /// The environment of a run in the domain: `base` with resolv_wrapper preloaded and
    /// the test CA trusted (`SSL_CERT_FILE`, as for every account that names no CA) unless
    /// `trustingTestCA` is false.
    public func environment(_ base: [String: String], trustingTestCA: Bool = true) -> [String: String] {
        var environment = base
        environment["LD_PRELOAD"] = "/usr/lib/x86_64-linux-gnu/libresolv_wrapper.so"
        environment["RESOLV_WRAPPER_CONF"] = resolvConf.path
        environment["SSL_CERT_FILE"] = trustingTestCA ? caFile : nil
        return environment
    }

    /// Runs `executable` in the domain (see the type's comment), in `environment(base)`.
    public func run(_ executable: String, _ arguments: [String], environment base: [String: String],
                    stdin: Data? = nil, timeout: TimeInterval = patience, trustingTestCA: Bool = true) throws -> RunResult {
        let argv = wrapped(executable) + arguments
        return try TestSupport.run(argv[0], Array(argv.dropFirst()), environment: environment(base, trustingTestCA: trustingTestCA),
                                   stdin: stdin, timeout: timeout)
    }

    /// The argv that runs `executable` in the domain, for a program that starts it itself.
    public func wrapped(_ executable: String) -> [String] {
        ["/usr/bin/unshare", "-m", "/bin/sh", "-c",
         // $0 the hosts file, $1 resolv.conf, then the command.
         "mount --bind \"$0\" /etc/hosts && mount --bind \"$1\" /etc/resolv.conf && shift && exec \"$@\"",
         hostsFile.path, resolvConf.path, executable]
    }

    private func jsonLines(_ name: String) -> [[String: Any]] {
        let text = (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    deinit {
        for process in processes { process.signal(SIGTERM) }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// gnome-keyring-daemon (its Secret Service only) on a private session bus, with a login
/// keyring of its own, unlocked at its start (`--unlock`, the keyring's password on its
/// standard input), in a directory of its own: the real keyring a person's desktop has,
/// without a prompt. Stopped when released.
public final class TestKeyring: @unchecked Sendable {
    public let bus: PrivateSessionBus
    public let directory: URL
    private let daemon: ServerProcess

    public var address: String { bus.address }

    public init() throws {
        bus = try PrivateSessionBus()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyring-\(UUID().uuidString)")
        let runtime = directory.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // The keyring's password from a file, so that the shell execs the daemon itself
        // (a pipe would leave the daemon a child of a shell that `stop` kills).
        let password = directory.appendingPathComponent("password")
        try "keyring-password".write(to: password, atomically: true, encoding: .utf8)
        daemon = try ServerProcess([
            "/bin/sh", "-c", "exec /usr/bin/gnome-keyring-daemon --unlock --components=secrets --foreground < \"$0\"", password.path,
        ], environment: [
            "HOME": directory.path, "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
            "XDG_RUNTIME_DIR": runtime.path, "DBUS_SESSION_BUS_ADDRESS": bus.address,
        ], unset: ["DISPLAY", "WAYLAND_DISPLAY"], output: directory.appendingPathComponent("daemon.log").path)
        try waitUntil("gnome-keyring-daemon owns org.freedesktop.secrets") {
            if bus.hasOwner("org.freedesktop.secrets") { return true }
            guard daemon.isRunning else { throw TestSupportError("gnome-keyring-daemon exited before it owned its name") }
            return false
        }
    }

    /// The secret stored under `attributes`, as libsecret's own client (PyGObject's
    /// `Secret.password_lookup_sync`) reads it back; `nil` when there is none.
    public func lookup(_ attributes: [String: String]) throws -> String? {
        let script = """
            import gi, json, sys
            gi.require_version("Secret", "1")
            from gi.repository import Secret
            found = Secret.password_lookup_sync(None, json.loads(sys.argv[1]), None)
            print(json.dumps(found))
            """
        let json = String(decoding: try JSONSerialization.data(withJSONObject: attributes), as: UTF8.self)
        let result = try run("/usr/bin/python3", ["-c", script, json], environment: [
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": directory.path,
        ])
        guard result.status == 0 else { throw TestSupportError("the keyring lookup failed: \(result)") }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: .fragmentsAllowed) as? String
    }

    deinit {
        daemon.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
