import Foundation

/// The command line of every process there is now, by process ID: `/proc/PID/cmdline`, its
/// arguments joined by NUL. What a test looks through for a secret that must never be in an
/// argv, which anyone on the machine can read.
public func commandLines() -> [(pid: pid_t, words: String)] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry in
        guard let pid = pid_t(entry), let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
        return (pid, String(decoding: cmdline, as: UTF8.self))
    }
}
