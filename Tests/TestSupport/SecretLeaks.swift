import Foundation

/// Runs the built `mailto-route` with `arguments` and `environment`, reading every process's
/// argv it can see every 20 ms while it runs: the ones holding any of `secrets`, other than
/// those of the test servers named in `otherSide` (a script's name in their argv), which are
/// given the secrets on purpose. Returns how it ended and the argvs that leaked one.
public func runWatchingArgv(
    _ arguments: [String], environment: [String: String], secrets: [String], otherSide: [String]
) throws -> (result: (status: Int32, stdout: String, stderr: String), leaks: [String]) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: mailtoRouteBinary)
    process.arguments = arguments
    process.environment = environment
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    var leaks: [String] = []
    try waitUntil("mailto-route \(arguments.first ?? "") has ended") {
        for (_, words) in commandLines() where secrets.contains(where: { words.contains($0) })
            && !otherSide.contains(where: { words.contains($0) }) {
            leaks.append(words)
        }
        return !process.isRunning
    }
    process.waitUntilExit()
    let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return ((process.terminationStatus, stdout, stderr), leaks)
}

/// Every file under `root` (a sandbox: config, state, outbox, drafts, outcome log) that
/// holds one of `secrets`.
public func filesHolding(_ secrets: [String], under root: URL) -> [String] {
    let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
    var found: [String] = []
    while let url = enumerator?.nextObject() as? URL {
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
              let data = FileManager.default.contents(atPath: url.path) else { continue }
        let text = String(decoding: data, as: UTF8.self)
        if secrets.contains(where: { text.contains($0) }) { found.append(url.path) }
    }
    return found
}
