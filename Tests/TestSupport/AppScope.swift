import Foundation

/// A desktop's app scope, as GNOME Shell and KDE Plasma start each application in one
/// (systemd's `app-gnome-libreoffice\x2dwriter-1234.scope`, systemd.io/DESKTOP_ENVIRONMENTS):
/// a real cgroup of the kernel's cgroup v2 hierarchy, which every process started in it and
/// all their descendants stay in, also after their parent exited. No systemd user manager
/// runs here, so the test makes the cgroup itself (as root), under a directory of its own.
public final class AppScope: @unchecked Sendable {
    public let unit: String
    public let directory: URL
    private let parent: URL

    public init(unit: String) throws {
        guard let mount = Self.cgroup2Mount() else {
            throw TestSupportError("no cgroup v2 hierarchy is mounted (/proc/self/mountinfo): an app scope cannot be made")
        }
        self.unit = unit
        parent = URL(fileURLWithPath: mount).appendingPathComponent("mailto-route-test-\(UUID().uuidString)")
        directory = parent.appendingPathComponent(unit)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw TestSupportError("cannot make the app scope \(directory.path): \(error)")
        }
    }

    /// `command` run inside the scope: a shell moves itself into it, then becomes `command`.
    public func wrap(_ command: [String]) -> [String] {
        ["/bin/sh", "-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\"", directory.path] + command
    }

    /// The processes in the scope now.
    public var processes: [Int32] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("cgroup.procs"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { Int32($0) }
    }

    /// The mount point of the cgroup2 file system (`/sys/fs/cgroup` on a pure v2 system,
    /// `/sys/fs/cgroup/unified` on a hybrid one).
    static func cgroup2Mount() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
            let fields = halves[0].split(separator: " ")
            if fields.count > 4 { return String(fields[4]) }
        }
        return nil
    }

    deinit {
        // A cgroup is removed once it holds no process: what the test started has ended,
        // or ends within seconds (an xdg-email in the background). Clean-up, not a check:
        // a cgroup that still holds a process after 10 s is left behind.
        _ = try? waitUntil("the scope holds no process", timeout: 10) { processes.isEmpty }
        rmdir(directory.path)
        rmdir(parent.path)
    }
}
