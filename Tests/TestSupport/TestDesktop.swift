import Foundation

/// A desktop for the sheet tests (Servers/desktop-session.py): Xvfb, a private session bus
/// with the system's service files, and the AT-SPI bus and registry on it. Two per test
/// process, each started by the first test that asks (about a second): the sheet tests
/// run one after another on `shared`, the desktop service's on `second`, so the two groups
/// go side by side, each with a screen of its own (whole-screen screenshots, one sheet
/// at a time for the driver to find). Each stops itself when the test process is gone.
public final class TestDesktop: Sendable {
    public let display: String
    public let busAddress: String
    /// The address of the desktop's accessibility bus (`org.a11y.Bus.GetAddress`), for a
    /// program started on another session bus (a D-Bus activated service) to put its
    /// windows where the sheet driver looks (`AT_SPI_BUS_ADDRESS`).
    public let accessibilityBusAddress: String
    /// Holds the scratch directory (the buses' sockets) for as long as the process runs.
    public let directory: URL
    private let process: ServerProcess

    public static let shared = started("the test desktop") { try TestDesktop() }
    public static let second = started("the test desktop") { try TestDesktop() }

    private init() throws {
        (process, directory, display, busAddress) = try startSession(name: "the test desktop (Xvfb, D-Bus, AT-SPI)")
        // Asked once: the accessibility bus lives as long as the desktop.
        accessibilityBusAddress = try BusCall.accessibilityBusAddress(on: busAddress)
    }

    /// `environment` with this desktop's display and session bus.
    public func environment(_ environment: [String: String]) -> [String: String] {
        var environment = environment
        environment["DISPLAY"] = display
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        // The AT-SPI bus address is on the X root window and the session bus; GTK finds it.
        environment["NO_AT_BRIDGE"] = nil
        environment["GTK_A11Y"] = nil
        // The sandbox's XDG_DATA_DIRS holds no GSettings schemas, which GTK's file chooser
        // cannot do without (a desktop always has them in /usr/share); settings stay in
        // memory, so that nothing is written to dconf.
        environment["GSETTINGS_SCHEMA_DIR"] = "/usr/share/glib-2.0/schemas"
        environment["GSETTINGS_BACKEND"] = "memory"
        // Cairo, and no GL context at all, not GL on Mesa's software renderer
        // (desktop-session.py says why).
        environment["GSK_RENDERER"] = "cairo"
        environment["GDK_DEBUG"] = "gl-disable"
        return environment
    }

    /// Runs Servers/sheet-driver.py with `steps` on this desktop: the JSON line each step
    /// printed, or the driver's failure as the error. With `MAILTO_ROUTE_TEST_TRACE` set in
    /// the tests' environment, those lines go to standard error too (each with its time
    /// since the driver started: where a slow test spends it).
    /// With `program` (the one that shows the window), a failure also says how that program
    /// fared: still running, or how it ended and what it printed.
    public func drive(_ steps: [String], timeout: Double = 15, watching program: DesktopProgram? = nil) throws -> [[String: Any]] {
        let result = try runSheetDriver(steps, timeout: timeout, environment: environment(ProcessInfo.processInfo.environment))
        if ProcessInfo.processInfo.environment["MAILTO_ROUTE_TEST_TRACE"] != nil { FileHandle.standardError.write(Data(result.stdout.utf8)) }
        guard result.status == 0 else {
            let fared = program.map { program in
                let (status, stdout, stderr) = program.finish(timeout: 1)
                return "\n--- the program: " + (status.map { "exit \($0)" } ?? "still running (stopped now)")
                    + "\n--- its stdout\n\(stdout)--- its stderr\n\(stderr)"
            }
            throw TestSupportError("sheet-driver.py: \(result)" + (fared ?? ""))
        }
        return sheetDriverLines(result)
    }
}

/// Runs Servers/sheet-driver.py with `steps` in `environment` (a desktop's, its accessibility
/// bus the driver's), each step given `timeout` seconds.
public func runSheetDriver(_ steps: [String], timeout: Double, environment: [String: String]) throws -> RunResult {
    // A failing driver leaves a screenshot of the screen beside the tests' own screenshots.
    let failures = packageRoot.appendingPathComponent(".build/sheet-screenshots/failures")
    try? FileManager.default.createDirectory(at: failures, withIntermediateDirectories: true)
    var environment = environment
    environment["SHEET_DRIVER_FAILURE_SHOT"] = failures.appendingPathComponent("\(UUID().uuidString).png").path
    return try run("/usr/bin/python3",
                   [packageRoot.appendingPathComponent("Tests/TestSupport/Servers/sheet-driver.py").path, "--timeout", String(timeout)] + steps,
                   environment: environment, timeout: timeout * Double(max(steps.count, 1)) + 10)
}

/// The JSON line each step of the sheet driver printed.
public func sheetDriverLines(_ result: RunResult) -> [[String: Any]] {
    result.stdout.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
}

/// A program on the test desktop that runs while a test drives it (a sheet), its output
/// in files; killed if the test leaves it running.
public final class DesktopProgram: @unchecked Sendable {
    private let process: ServerProcess
    private let out: URL
    private let err: URL
    public var pid: pid_t { process.pid }
    /// Whether it has not ended yet.
    public var isRunning: Bool { process.isRunning }

    public init(_ argv: [String], environment: [String: String], directory: URL) throws {
        out = directory.appendingPathComponent("program-\(UUID().uuidString).out")
        err = directory.appendingPathComponent("program-\(UUID().uuidString).err")
        // Exactly `environment` (env -i), standard output and error apart, so the report
        // can be read as JSON.
        let shell = "exec \"$@\" >'\(out.path)' 2>'\(err.path)'"
        let pairs = environment.map { "\($0.key)=\($0.value)" }
        // A session of its own (setsid), so that what it starts (mailto-route starts the
        // sheet as a child) goes with it when a failed test leaves it running.
        process = try ServerProcess(["/usr/bin/setsid", "/usr/bin/env", "-i"] + pairs + ["/bin/sh", "-c", shell, "sh"] + argv)
    }

    /// Waits for the exit: the status and what it printed; `nil` status when it did not end in time.
    public func finish(timeout: Double = 20) -> (status: Int32?, stdout: String, stderr: String) {
        let status = process.wait(timeout: timeout)
        if status == nil { stopAll() }
        let stdout = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        return (status, stdout, stderr)
    }

    public func kill9() {
        kill(process.pid, SIGKILL)
        _ = process.wait(timeout: 5)
    }

    private func stopAll() {
        kill(-process.pid, SIGKILL)
        process.stop()
    }

    deinit {
        stopAll()
    }
}

/// A display and nothing else (Xvfb: `desktop-session.py --display-only`), for a test process
/// that shows windows of its own and drives them in-process (the sheet's actions): no bus, no
/// accessibility bus, and no other test's windows on its screen. Started by the first test
/// that asks; it stops itself when the test process is gone.
public final class TestDisplay: Sendable {
    public let display: String
    private let process: ServerProcess

    public static let shared = started("the test display") { try TestDisplay() }

    private init() throws {
        (process, _, display, _) = try startSession(name: "the test display (Xvfb)", displayOnly: true)
    }
}

/// Starts `desktop-session.py` in a scratch directory of its own (its HOME and
/// XDG_RUNTIME_DIR: the AT-SPI bus puts its socket there) and waits until it serves: the
/// process, the directory, DISPLAY and the session bus's address (empty with `displayOnly`).
private func startSession(name: String, displayOnly: Bool = false) throws -> (ServerProcess, URL, String, String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailto-route-desktop-\(UUID().uuidString)")
    let runtime = directory.appendingPathComponent("run")
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
    chmod(runtime.path, 0o700)
    let ready = directory.appendingPathComponent("ready")
    let process = try ServerProcess(
        ["/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/desktop-session.py").path,
         "--ready", ready.path, "--dir", directory.path] + (displayOnly ? ["--display-only"] : []),
        environment: ["HOME": directory.path, "XDG_RUNTIME_DIR": runtime.path],
        output: directory.appendingPathComponent("session.log").path)
    try process.waitForReady(ready.path, name: name, timeout: 20)
    let lines = try String(contentsOf: ready, encoding: .utf8).split(separator: "\n").map(String.init)
    guard lines.count == (displayOnly ? 1 : 2) else { throw TestSupportError("desktop-session.py wrote \(lines)") }
    return (process, directory, lines[0], displayOnly ? "" : lines[1])
}

/// What `make` made, or why it could not be made, kept as a `Result`: for what a test process
/// starts once (a desktop, a display, GTK) and every test that needs it asks for
/// (`.get()`), each failing with the same reason when it could not start.
public func started<Value>(_ what: String, _ make: () throws -> Value) -> Result<Value, TestSupportError> {
    do {
        return .success(try make())
    } catch let error as TestSupportError {
        return .failure(error)
    } catch {
        return .failure(TestSupportError("cannot start \(what): \(error)"))
    }
}
