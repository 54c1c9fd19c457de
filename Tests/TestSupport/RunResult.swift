import Foundation

/// What a finished subprocess left behind.
public struct RunResult: Sendable, CustomStringConvertible {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public var description: String {
        "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }
}

/// Runs a program to completion with the given environment and standard input, killing it
/// and every process below it after `timeout` seconds (a hang is a failure, never a stuck
/// suite): by default `patience`: a program that must give up at a deadline of its own
/// shows it did by ending, and the test needs no clock of its own.
public func run(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    stdin: Data? = nil, timeout: TimeInterval = patience
) throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let outPipe = Pipe()
    let errPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    // Standard input from a file, not a pipe: a program that ends without reading it (a
    // usage mistake) would have the test process's write to the pipe raise SIGPIPE, which
    // ends the whole test process with no word.
    var input: FileHandle?
    if let stdin {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stdin-\(UUID().uuidString)")
        try stdin.write(to: file)
        input = try FileHandle(forReadingFrom: file)
        try FileManager.default.removeItem(at: file)
    }
    process.standardInput = input ?? FileHandle.nullDevice
    defer { try? input?.close() }
    // The exit is waited on as an event (Foundation calls the handler when it reaps the
    // child), up to the timeout.
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    // Read both pipes while the process runs, so neither can fill up and block it.
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        outData = outPipe.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    group.enter()
    DispatchQueue.global().async {
        errData = errPipe.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    if exited.wait(timeout: .now() + timeout) == .timedOut {
        // Below it too: `setsid -w PROGRAM` (Foundation makes the child a process group
        // leader, so setsid forks) leaves PROGRAM, in a session of its own, holding the
        // output pipes read to their end below.
        for pid in [process.processIdentifier] + descendants(of: process.processIdentifier) { kill(pid, SIGKILL) }
    }
    process.waitUntilExit()
    group.wait()
    return RunResult(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self)
    )
}

/// Every process below `pid` (its children, theirs, and so on), from each one's parent in
/// `/proc/PID/stat`.
func descendants(of pid: pid_t) -> [pid_t] {
    var children: [pid_t: [pid_t]] = [:]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses of its own.
        guard let child = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { continue }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 1, let parent = pid_t(fields[1]) else { continue }
        children[parent, default: []].append(child)
    }
    var found: [pid_t] = []
    var next = [pid]
    while let parent = next.popLast() {
        let below = children[parent] ?? []
        found += below
        next += below
    }
    return found
}

/// The package's root directory, found from this file's place in it.
public let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs the built `mailto-route` in `sandbox` (or with no HOME at all when `nil`).
public func mailtoRoute(
    _ arguments: [String], in sandbox: Sandbox, extraEnvironment: [String: String] = [:],
    stdin: Data? = nil, timeout: TimeInterval = patience
) throws -> RunResult {
    var environment = sandbox.environment
    environment.merge(extraEnvironment) { $1 }
    return try run(mailtoRouteBinary, arguments, environment: environment, stdin: stdin, timeout: timeout)
}
