import Foundation

/// Mail programs, browsers and terminals for the tests: each is a desktop file whose
/// `Exec=` runs a small shell script that records its argv (NUL-separated) and the loop
/// guard it was given, so that every launch is a real one through GIO.
extension Sandbox {
    public var binDirectory: URL { root.appendingPathComponent("bin") }
    public var recordsDirectory: URL { root.appendingPathComponent("records") }
    /// Where a package would install desktop files (XDG_DATA_DIRS).
    public var systemApplications: URL { systemDataDir.appendingPathComponent("applications") }
    public var userApplications: URL { dataHome.appendingPathComponent("applications") }
    public var mimeappsList: URL { configHome.appendingPathComponent("mimeapps.list") }

    /// A recording script named `program` in the sandbox's `bin` (first in `PATH`).
    @discardableResult
    public func installRecorder(_ program: String) throws -> String {
        try FileManager.default.createDirectory(at: recordsDirectory, withIntermediateDirectories: true)
        let record = recordsDirectory.appendingPathComponent(program).path
        let script = """
            #!/bin/sh
            printf '%s\\0' "$@" > '\(record).tmp'
            printf '%s' "${MAILTO_ROUTE_HANDOFF-}" > '\(record).guard'
            mv '\(record).tmp' '\(record).argv'

            """
        let url = try write(script, to: "bin/\(program)", mode: 0o755)
        return url.path
    }

    /// Installs `id` as a package would (system applications directory, then
    /// `update-desktop-database`, which writes the `mimeinfo.cache` GIO reads), running the
    /// recording script `program`. `exec` is the rest of `Exec=` after the program.
    public func installHandler(
        _ id: String, name: String, program: String, exec: String = "%u",
        mimeTypes: String = "x-scheme-handler/mailto;", extraLines: [String] = [],
        absoluteExec: Bool = true
    ) throws {
        let path = try installRecorder(program)
        let lines = [
            "[Desktop Entry]", "Type=Application", "Name=\(name)",
            "Exec=\(absoluteExec ? path : program) \(exec)", "MimeType=\(mimeTypes)",
        ] + extraLines
        try FileManager.default.createDirectory(at: systemApplications, withIntermediateDirectories: true)
        try (lines.joined(separator: "\n") + "\n").write(
            to: systemApplications.appendingPathComponent(id), atomically: false, encoding: .utf8)
        let result = try run("/usr/bin/update-desktop-database", [systemApplications.path])
        precondition(result.status == 0, "update-desktop-database failed: \(result)")
    }

    /// A script named `program` in the sandbox's `bin` (first in `PATH`) that runs `body`
    /// (sh), for launchers that fail, daemonise or look at their terminal.
    @discardableResult
    public func installScript(_ program: String, _ body: String) throws -> String {
        try FileManager.default.createDirectory(at: recordsDirectory, withIntermediateDirectories: true)
        return try write("#!/bin/sh\n" + body + "\n", to: "bin/\(program)", mode: 0o755).path
    }

    /// Installs a real package's desktop file (such as Debian's
    /// `/usr/share/applications/neomutt.desktop`) unchanged, as its package does.
    public func installDesktopFile(copying path: String) throws {
        try FileManager.default.createDirectory(at: systemApplications, withIntermediateDirectories: true)
        let target = systemApplications.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(atPath: path, toPath: target.path)
        let result = try run("/usr/bin/update-desktop-database", [systemApplications.path])
        precondition(result.status == 0, "update-desktop-database failed: \(result)")
    }

    /// Debian's neomutt.desktop (`Exec=neomutt %u`, `Terminal=true`), from the neomutt package.
    public static let neomuttDesktopFile = "/usr/share/applications/neomutt.desktop"

    /// Debian's neomutt.desktop, unchanged, and a recording `neomutt`: a mail program that
    /// starts only in a terminal.
    public func installNeomutt() throws {
        try installDesktopFile(copying: Self.neomuttDesktopFile)
        try installRecorder("neomutt")
    }

    /// A `PATH` holding only the sandbox's `bin` and links to `tools` (what the recording
    /// scripts use), so that no terminal emulator installed on the machine is found.
    public func isolatedPath(tools: [String] = ["mv", "sleep", "cat", "tty"]) throws -> String {
        let directory = root.appendingPathComponent("tools")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for tool in tools {
            let link = directory.appendingPathComponent(tool)
            guard !FileManager.default.fileExists(atPath: link.path),
                  let found = ["/usr/bin/\(tool)", "/bin/\(tool)"].first(where: FileManager.default.isExecutableFile)
            else { continue }
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: found)
        }
        try FileManager.default.createDirectory(at: binDirectory, withIntermediateDirectories: true)
        return binDirectory.path + ":" + directory.path
    }

    /// Writes `~/.config/mimeapps.list` naming `id` the default `mailto:` handler.
    public func setDefaultMailHandler(_ id: String) throws {
        try write("[Default Applications]\nx-scheme-handler/mailto=\(id)\n", to: "home/.config/mimeapps.list")
    }

    /// The argv `program` was started with (without `$0`), waiting up to `timeout` seconds
    /// for the launch: GIO and GLib start programs without waiting for them.
    public func recordedArgv(_ program: String, timeout: TimeInterval = patience) -> [String]? {
        let path = recordsDirectory.appendingPathComponent("\(program).argv").path
        var recorded: Data?
        _ = try? waitUntil("\(program) was started", timeout: timeout) {
            recorded = FileManager.default.contents(atPath: path)
            return recorded != nil
        }
        return recorded.map { data in
            String(decoding: data, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }

    /// Whether `program` was never started, asked once a mailto-route run has ended: a
    /// run that launches a program watches it until it exits or 2 s have passed, and a
    /// recording program writes its argv first, so a launch the run made is on record by
    /// the time the run is over. Nothing to wait for.
    public func neverLaunched(_ program: String) -> Bool {
        recordedArgv(program, timeout: 0) == nil
    }

    /// The value of MAILTO_ROUTE_HANDOFF `program` saw ("" when unset).
    public func recordedGuard(_ program: String) -> String? {
        let path = recordsDirectory.appendingPathComponent("\(program).guard").path
        return FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The sandbox's environment with its `bin` first in PATH, and `extra` on top.
    public func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = self.environment
        environment["PATH"] = binDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment.merge(extra) { $1 }
        return environment
    }

    public func contents(_ url: URL) -> String? {
        FileManager.default.contents(atPath: url.path).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Runs the built `mailto-route` in `sandbox` with no controlling terminal (`setsid`), as
/// a clicked link runs it, also when the tests themselves run on one.
public func routeWithoutTerminal(_ arguments: [String], in sandbox: Sandbox, _ extra: [String: String] = [:]) throws -> RunResult {
    try run("/usr/bin/setsid", ["-w", mailtoRouteBinary] + arguments, environment: sandbox.environment(extra), timeout: patience)
}

/// Runs the built `mailto-route` in `sandbox`, its `bin` first in `PATH`.
public func route(_ arguments: [String], in sandbox: Sandbox, _ extra: [String: String] = [:]) throws -> RunResult {
    try run(mailtoRouteBinary, arguments, environment: sandbox.environment(extra), timeout: patience)
}

extension Sandbox {
    /// `data/xdg-email-hook.sh` as `make install` installs it, running the built
    /// `mailto-route`, in the sandbox's `bin` (first in `PATH`), where xdg-email finds it.
    public func installXDGEmailHook() throws {
        let source = packageRoot.appendingPathComponent("data/xdg-email-hook.sh")
        let hook = try String(contentsOf: source, encoding: .utf8).replacingOccurrences(of: "@EXEC@", with: mailtoRouteBinary)
        try write(hook, to: "bin/xdg-email-hook.sh", mode: 0o755)
    }
}

/// Runs Debian's real `/usr/bin/xdg-email` (xdg-utils) in `sandbox` with no terminal, as a
/// program on the desktop runs it; the sandbox's `bin` is first in `PATH`.
public func xdgEmail(_ arguments: [String], in sandbox: Sandbox, _ extra: [String: String] = [:]) throws -> RunResult {
    try run("/usr/bin/setsid", ["-w", "/usr/bin/xdg-email"] + arguments, environment: sandbox.environment(extra), timeout: 30)
}
