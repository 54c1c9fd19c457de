import Foundation

/// An executable product built next to the running tests (`swift build` puts every
/// product of a configuration in one directory): `mailto-route` itself, or a test helper
/// such as `outbox-torture`.
public func builtExecutable(_ name: String) -> String {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = testBinary.deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
        directory = directory.deletingLastPathComponent()
    }
    return packageRoot.appendingPathComponent(".build/debug/\(name)").path
}

/// The `mailto-route` binary built next to the running tests.
public let mailtoRouteBinary = builtExecutable("mailto-route")
