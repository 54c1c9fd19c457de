import Foundation

/// An executable product built next to the running tests (test helpers such as
/// `outbox-torture`), found the way `mailtoRouteBinary` is.
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
