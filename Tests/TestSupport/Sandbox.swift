import Foundation

/// A temporary HOME with its own XDG_* directories, so that a test never touches the real
/// user's files; removed when the value is released.
public final class Sandbox: @unchecked Sendable {
    public let root: URL
    public var home: URL { root.appendingPathComponent("home") }
    public var configHome: URL { home.appendingPathComponent(".config") }
    public var dataHome: URL { home.appendingPathComponent(".local/share") }
    public var stateHome: URL { home.appendingPathComponent(".local/state") }
    public var cacheHome: URL { home.appendingPathComponent(".cache") }
    public var runtimeDir: URL { root.appendingPathComponent("run") }
    /// XDG_DATA_DIRS: a system directory of this sandbox's own.
    public var systemDataDir: URL { root.appendingPathComponent("usr/share") }
    public var systemConfigDir: URL { root.appendingPathComponent("etc/xdg") }

    public init(prefix: String = "mailto-route-test") throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        for directory in [home, configHome, dataHome, stateHome, cacheHome, runtimeDir, systemDataDir, systemConfigDir] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        chmod(runtimeDir.path, 0o700)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// The environment a process in this sandbox gets: the inherited one (PATH and the
    /// like) with HOME and every XDG_* variable pointed here (`isolatedEnvironment`).
    public var environment: [String: String] { isolatedEnvironment(root: root) }

    /// Writes `contents` at `path` below the sandbox root, creating directories.
    ///
    /// The file is open with `O_CLOEXEC` while it is written: the tests run side by side in
    /// one process, and a program another test starts meanwhile would otherwise inherit the
    /// descriptor open for writing and keep it for its whole life, so that running this
    /// file (a recording mail program) failed with ETXTBSY, "Text file busy".
    @discardableResult
    public func write(_ contents: String, to path: String, mode: Int16? = nil) throws -> URL {
        try write(Data(contents.utf8), to: path, mode: mode)
    }

    /// `write(_:to:mode:)` of bytes: a copy of a program, say (never `FileManager.copyItem`,
    /// whose descriptor is inherited as above).
    @discardableResult
    public func write(_ contents: Data, to path: String, mode: Int16? = nil) throws -> URL {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TestSupportError("cannot write \(url.path): errno \(errno)") }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try file.write(contentsOf: contents)
        try file.close()
        if let mode { chmod(url.path, mode_t(mode)) }
        return url
    }
}

/// The environment of every test and benchmark process: `base` (the inherited one: PATH
/// and the like) with HOME and every XDG_* variable under `root`, in a `Sandbox`'s layout,
/// no session bus, no display and no `TERMINAL` unless the caller adds them, messages in English. Nothing a test or a
/// benchmark runs may read or write the user's own files: with `XDG_STATE_HOME` left as the
/// caller's, a flush to a sink that discards everything once emptied a real outbox.
public func isolatedEnvironment(root: URL, base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
    var environment = base
    for key in environment.keys where key.hasPrefix("XDG_") { environment[key] = nil }
    let home = root.appendingPathComponent("home")
    environment["HOME"] = home.path
    environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
    environment["XDG_DATA_HOME"] = home.appendingPathComponent(".local/share").path
    environment["XDG_STATE_HOME"] = home.appendingPathComponent(".local/state").path
    environment["XDG_CACHE_HOME"] = home.appendingPathComponent(".cache").path
    environment["XDG_RUNTIME_DIR"] = root.appendingPathComponent("run").path
    environment["XDG_DATA_DIRS"] = root.appendingPathComponent("usr/share").path
    environment["XDG_CONFIG_DIRS"] = root.appendingPathComponent("etc/xdg").path
    environment["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
    environment["DISPLAY"] = nil
    environment["WAYLAND_DISPLAY"] = nil
    // The caller's own terminal emulator is no test's: a test that wants one names it (a
    // terminal program runs in `$TERMINAL` before any other, TerminalEmulator.find).
    environment["TERMINAL"] = nil
    // Messages in English, as the tests compare them: a caller in another language runs
    // them in C.UTF-8 (the spell checker's language and the rest follow; a test of a
    // translation sets its own, `inLocale`). An English or C caller's locale stays.
    let messages = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
    if !["C", "POSIX", "en"].contains(where: { messages == $0 || messages.hasPrefix($0 + ".") || messages.hasPrefix($0 + "_") }) {
        environment["LC_ALL"] = nil
        environment["LC_MESSAGES"] = nil
        environment["LANG"] = "C.UTF-8"
    }
    environment["LANGUAGE"] = nil
    return environment
}

extension Sandbox {
    /// The drafts mailto-route saved here (`$XDG_DATA_HOME/mailto-route/drafts/*.eml`).
    public var drafts: [URL] {
        let directory = dataHome.appendingPathComponent("mailto-route/drafts")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".eml") }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// A header of a saved message as Python's `email` package reads it (an independent
    /// parser, not ours); `nil` when absent.
    public func header(_ name: String, of message: URL) throws -> String? {
        let result = try run("/usr/bin/python3", ["-c", """
            import sys
            from email import policy
            from email.parser import BytesParser
            with open(sys.argv[1], 'rb') as f:
                message = BytesParser(policy=policy.default).parse(f)
            value = message[sys.argv[2]]
            print('' if value is None else 'value:' + str(value), end='')
            """, message.path, name])
        return result.stdout.hasPrefix("value:") ? String(result.stdout.dropFirst(6)) : nil
    }
}
