import CTestProcess
import Foundation

/// A private `dbus-daemon` of the session type, with a configuration of its own: its
/// socket in a directory of this test, no service activation (so no notification server
/// installed on the machine can answer in a test's place), and nothing shared with the
/// real user's bus. Stopped when the value is released.
public final class PrivateSessionBus: @unchecked Sendable {
    public let address: String
    private let process: ServerProcess
    private let directory: URL

    /// With `serviceDirectory`, the bus activates the services whose files are there (as a
    /// session bus does from `$XDG_DATA_HOME/dbus-1/services`), in `environment` (the
    /// activation environment, added to the test's, without the variables in `unset`; its
    /// own address as the session bus).
    public init(serviceDirectory: URL? = nil, environment: [String: String] = [:], unset: Set<String> = []) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mailto-route-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let serviceDirectory {
            try FileManager.default.createDirectory(at: serviceDirectory, withIntermediateDirectories: true)
        }
        let config = directory.appendingPathComponent("session.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(directory.path)/bus</listen>
              <auth>EXTERNAL</auth>
            \(serviceDirectory.map { "  <servicedir>\($0.path)</servicedir>" } ?? "")
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(to: config, atomically: false, encoding: .utf8)
        let socket = directory.appendingPathComponent("bus").path
        var activation = environment
        activation["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"
        process = try ServerProcess([
            "/usr/bin/dbus-daemon", "--config-file=\(config.path)", "--nofork", "--nopidfile",
        ], environment: activation, unset: unset, output: directory.appendingPathComponent("bus.log").path)
        try process.waitForReady(socket, name: "dbus-daemon")
        // The socket's file exists from bind(), a moment before listen(): a client then is
        // refused (seen under load). Ready once a connection is taken.
        try waitUntil("dbus-daemon accepts connections on \(socket)", every: 0.005) { acceptsConnections(socket) }
        address = "unix:path=\(socket)"
    }

    /// `gdbus call` on this bus, in `environment`.
    public func gdbus(_ arguments: [String], environment: [String: String]) throws -> RunResult {
        try run("/usr/bin/gdbus", ["call", "--address", address] + arguments, environment: environment, timeout: 40)
    }

    /// Whether `name` has an owner on this bus now (`org.freedesktop.DBus.NameHasOwner`).
    public func hasOwner(_ name: String) -> Bool {
        BusCall.hasOwner(name, on: address)
    }

    /// The process that owns `name` on this bus now (`GetConnectionUnixProcessID`).
    public func processID(of name: String) throws(TestSupportError) -> pid_t {
        try BusCall.processID(of: name, on: address)
    }

    /// Waits up to `timeout` seconds for `name` to have no owner; whether it came to that.
    public func waitUntilUnowned(_ name: String, timeout: Double) -> Bool {
        (try? waitUntil("\(name) has no owner", timeout: timeout) { !hasOwner(name) }) != nil
    }

    /// Ends the bus (SIGKILL), as a session whose bus crashed: every connection to it closes.
    public func stop() {
        process.stop()
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A real `org.freedesktop.Notifications` server (`Servers/notification-server.py`, with
/// Debian's python3-dbus and python3-gi) on `bus`, answering as scripted, and recording
/// every call it gets. Stopped when the value is released.
public final class ScriptedNotificationServer: @unchecked Sendable {
    /// What the server was asked to do, one entry per call.
    public struct Call: Sendable {
        public var method: String
        public var id: Int
        public var appName: String
        public var appIcon: String
        public var summary: String
        public var body: String
        public var actions: [String]
        public var urgency: Int?
        public var expireTimeout: Int?
    }

    private let process: ServerProcess
    private let directory: URL
    private var record: URL { directory.appendingPathComponent("calls.jsonl") }

    /// `answers` are the steps the server takes after each Notify, `delay` seconds apart
    /// (`action:KEY`, `button:LABEL`, `close:REASON`, `other-action:KEY`,
    /// `other-close:REASON`; none: never answer).
    public init(
        on bus: PrivateSessionBus, capabilities: [String] = ["actions", "body"], answers: [String] = [],
        silentNotify: Bool = false, delay: Double = 0.05
    ) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mailto-route-notifications-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ready = directory.appendingPathComponent("ready")
        var arguments = [
            "/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/notification-server.py").path,
            "--record", directory.appendingPathComponent("calls.jsonl").path, "--ready", ready.path,
            "--capabilities", capabilities.joined(separator: ","),
        ]
        for answer in answers { arguments += ["--answer", answer] }
        arguments += ["--delay", String(delay)]
        if silentNotify { arguments.append("--silent-notify") }
        process = try ServerProcess(arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try process.waitForReady(ready.path, name: "the notification server")
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every call so far, in order.
    public var calls: [Call] {
        guard let data = try? Data(contentsOf: record) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return nil }
            let hints = object["hints"] as? [String: Any]
            return Call(
                method: object["method"] as? String ?? "", id: object["id"] as? Int ?? 0,
                appName: object["app_name"] as? String ?? "", appIcon: object["app_icon"] as? String ?? "",
                summary: object["summary"] as? String ?? "", body: object["body"] as? String ?? "",
                actions: object["actions"] as? [String] ?? [], urgency: hints?["urgency"] as? Int,
                expireTimeout: object["expire_timeout"] as? Int
            )
        }
    }

    /// The Notify calls so far.
    public var notifications: [Call] { calls.filter { $0.method == "Notify" } }
}

/// Runs `command` on a pseudo-terminal of its own (`Servers/tty-driver.py`): it is the
/// command's controlling terminal, so `/dev/tty` is it. Each of `answers` is typed once
/// the prompt (text ending in `prompt`) has appeared once more; `EOF` types Ctrl-D.
/// `typeahead` is typed at once. The result's stdout is everything the terminal showed.
public func runOnTerminal(
    _ command: [String], answers: [String] = [], typeahead: String? = nil, prompt: String = "? ",
    environment: [String: String], timeout: TimeInterval = 20
) throws -> RunResult {
    var arguments = [
        packageRoot.appendingPathComponent("Tests/TestSupport/Servers/tty-driver.py").path,
        "--prompt", prompt, "--timeout", String(timeout),
    ]
    for answer in answers { arguments += ["--answer", answer] }
    if let typeahead { arguments += ["--typeahead", typeahead] }
    arguments.append("--")
    return try run("/usr/bin/python3", arguments + command, environment: environment, timeout: timeout + 5)
}

/// A long-running server a test starts (a bus, a notification server, a silent socket),
/// stopped with SIGKILL by `stop` or when released.
///
/// Not a Foundation `Process`: Foundation learns that a child exited when a socket the
/// child inherited closes, so a server that lives on while other tests run programs would
/// hold their sockets (and pipes) and make them wait as long as it lives. This one is
/// started with `posix_spawn`, which closes every descriptor but 0-2 in the child and
/// blocks no signal there (a test thread's blocked SIGTERM would be inherited), then execs
/// `argv` (`argv[0]` a full path).
public final class ServerProcess: @unchecked Sendable {
    public let pid: pid_t
    private var stopped = false

    /// `output`: a file that gets standard output and standard error (else /dev/null).
    /// `environment` is added to the test's, less the variables in `unset`.
    public init(_ argv: [String], environment extra: [String: String] = [:], unset: Set<String> = [], output: String? = nil) throws {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { $1 }
        for name in unset { environment[name] = nil }
        let cArgv: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer {
            for pointer in cArgv + cEnvironment { free(pointer) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        if output != nil { posix_spawn_file_actions_adddup2(&actions, 1, 2) }
        mr_test_spawn_close_from(&actions, 3)
        // No signal blocked: a test thread's blocked SIGTERM would be inherited.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var child: pid_t = 0
        let status = posix_spawn(&child, argv[0], &actions, &attributes, cArgv, cEnvironment)
        guard status == 0 else { throw TestSupportError("cannot start \(argv[0]): error \(status)") }
        pid = child
    }

    /// Waits up to `timeout` seconds for `path` to appear (the socket or ready file the
    /// server makes once it serves); when it does not, because the server exited first or
    /// the time ran out, stops the server and throws, naming it `name`.
    public func waitForReady(_ path: String, name: String, timeout: Double = patience) throws {
        do {
            try waitUntil("\(name) is ready (\(path) exists)", timeout: timeout, every: 0.005) {
                if FileManager.default.fileExists(atPath: path) { return true }
                guard isRunning || FileManager.default.fileExists(atPath: path) else {
                    throw TestSupportError("\(name) exited before it was ready (no \(path))")
                }
                return false
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Waits up to `timeout` seconds for the exit: its exit status (128 + the signal that
    /// ended it, as a shell says), or `nil` when it is still running. The exit is an event:
    /// the child's pidfd polls readable once it has exited.
    public func wait(timeout: Double) -> Int32? {
        guard !stopped, ProcessReference(pid).waitForExit(seconds: timeout) else { return nil }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        stopped = true
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Sends SIGTERM and waits up to `timeout` seconds: the exit status, or `nil` (then it
    /// is killed) when it did not end.
    public func terminate(timeout: Double = patience) -> Int32? {
        guard !stopped else { return nil }
        kill(pid, SIGTERM)
        if let status = wait(timeout: timeout) { return status }
        stop()
        return nil
    }

    /// Whether it is still running (not reaped).
    public var isRunning: Bool {
        guard !stopped else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            stopped = true
            return false
        }
        return true
    }

    public func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    deinit {
        stop()
    }
}

/// A test harness that could not set itself up.
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Whether a process listens on the Unix socket at `path` (a connection is taken).
func acceptsConnections(_ path: String) -> Bool {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
        }
    }
}
