import Foundation
import TestSupport

// Running the programs a benchmark compares, the same way for each of them.

/// What a reference program (curl, msmtp, smtp-source) runs with: HOME and every XDG_*
/// directory under a scratch directory of this run, as every benchmark process has
/// (TestSupport's `isolatedEnvironment`); the directory goes with the run.
let referenceRoot = FileManager.default.temporaryDirectory.appendingPathComponent("mailto-route-bench-references-\(getpid())")
let referenceEnvironment: [String: String] = {
    atexit { try? FileManager.default.removeItem(at: referenceRoot) }
    return isolatedEnvironment(root: referenceRoot)
}()

/// A finished child: exit status, wall time.
struct Measured {
    var status: Int32
    var seconds: Double
    /// With `untilCreated`: when the file was seen to exist, from the start.
    var createdSeconds: Double? = nil
}

/// Runs `argv` with posix_spawn and waits with wait4, for its time and peak RSS. Standard
/// input from `stdinPath` (or /dev/null); output discarded. With `untilCreated`, it also
/// times when that file appeared (an effect the program may leave to a child of its own),
/// and waits for both; both ends are woken by the kernel (wait4 on a thread made before
/// the program starts, inotify here), never by a sleep, whose timer tick may be 4 ms.
func measure(_ argv: [String], environment: [String: String]? = nil, stdinPath: String? = nil,
             untilCreated file: String? = nil) -> Measured {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath ?? "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/tmp/bench-send-stderr.log", O_WRONLY | O_CREAT | O_APPEND, 0o644)
    let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { cArgs.forEach { free($0) } }
    let env = (environment ?? referenceEnvironment).map { "\($0.key)=\($0.value)" }
    let cEnv: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
    defer { cEnv.forEach { free($0) } }
    guard let file else {
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        guard posix_spawnp(&pid, argv[0], &actions, nil, cArgs, cEnv) == 0 else {
            return Measured(status: -1, seconds: 0)
        }
        let run = reap(pid)
        return Measured(status: run.status, seconds: Double(run.ended - start) / 1e9)
    }
    // The reaping thread is started before the clock, not while the program starts up:
    // making a thread then would take CPU time from the program being timed.
    let created = FileCreation(path: file)
    nonisolated(unsafe) var child: pid_t = 0
    nonisolated(unsafe) var run: (status: Int32, ended: UInt64) = (0, 0)
    let spawned = DispatchSemaphore(value: 0)
    let exited = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        spawned.wait()
        if child > 0 { run = reap(child) }
        exited.signal()
    }
    let start = DispatchTime.now().uptimeNanoseconds
    let status = posix_spawnp(&child, argv[0], &actions, nil, cArgs, cEnv)
    if status != 0 { child = 0 }
    spawned.signal()
    guard status == 0 else {
        exited.wait()
        return Measured(status: -1, seconds: 0)
    }
    let createdAt = created.wait(until: start + 5_000_000_000)
    exited.wait()
    guard let createdAt else { return Measured(status: -1, seconds: 0) }
    return Measured(status: run.status, seconds: Double(run.ended - start) / 1e9,
                    createdSeconds: Double(createdAt - start) / 1e9)
}

/// Waits for `pid`: its exit status, when it was seen to end.
private func reap(_ pid: pid_t) -> (status: Int32, ended: UInt64) {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    return ((status >> 8) & 0xFF, DispatchTime.now().uptimeNanoseconds)
}

/// `measure` of `argv` and its peak RSS in KB, as GNU time reports it (`%M`). Not wait4's
/// ru_maxrss of a child of this process: posix_spawn starts it sharing this process's
/// memory (CLONE_VM) until it executes, and the kernel keeps the larger of the two peaks,
/// so every program measured that way had this benchmark's own 29 MB. time(1) forks the
/// program from its own small process. The peak is nil when time(1) wrote none, so that a
/// missing figure is never read as 0 MB.
func measurePeak(_ argv: [String], environment: [String: String]? = nil, stdinPath: String? = nil)
    -> (run: Measured, peakKB: Int?) {
    let report = FileManager.default.temporaryDirectory.appendingPathComponent("bench-peak-\(UUID().uuidString)").path
    defer { unlink(report) }
    let run = measure(["/usr/bin/time", "--quiet", "-f", "%M", "-o", report, "--"] + argv, environment: environment, stdinPath: stdinPath)
    let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
    return (run, text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last.flatMap { Int($0) })
}

/// The moment a file is created in a directory, from inotify, watched from before the
/// program that creates it starts.
private struct FileCreation {
    let path: String
    let descriptor: Int32

    init(path: String) {
        self.path = path
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        let directory = (path as NSString).deletingLastPathComponent
        _ = inotify_add_watch(descriptor, directory, UInt32(IN_CREATE | IN_MOVED_TO))
    }

    /// When the file was seen to exist, or nil by `deadline` (uptime nanoseconds).
    func wait(until deadline: UInt64) -> UInt64? {
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if access(path, F_OK) == 0 { return DispatchTime.now().uptimeNanoseconds }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return nil }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, Int32((deadline - now) / 1_000_000 + 1)) > 0 {
                _ = read(descriptor, &buffer, buffer.count)
            }
        }
    }
}

/// The median; for an even count, the mean of the two middle values.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// A side-by-side figure of `rounds` paired rounds: each side's times and the per-round
/// ratios, whose median is the figure. A run that gives no time ends the bench with
/// `failure` (exit 1); `between` runs after each round (a third, unpaired command).
struct PairedTimes {
    var ours: [Double] = []
    var reference: [Double] = []
    var ratios: [Double] = []

    init(rounds: Int, failure: String, ours: () -> Double?, reference: () -> Double?, between: (Int) -> Void = { _ in }) {
        for round in 0..<rounds {
            let pair = pairedRound(round, ours: ours, reference: reference)
            guard let oursMs = pair.0, let referenceMs = pair.1 else {
                FileHandle.standardError.write(Data("bench: \(failure)\n".utf8))
                exit(1)
            }
            self.ours.append(oursMs)
            self.reference.append(referenceMs)
            ratios.append(oursMs / referenceMs)
            between(round)
        }
    }
}

/// One round of a side-by-side figure: both runs, who goes first alternating with
/// `round`, so that neither always runs on a warmer cache. Returns (ours, reference).
func pairedRound<T>(_ round: Int, ours: () -> T, reference: () -> T) -> (T, T) {
    if round % 2 == 0 {
        let first = ours()
        return (first, reference())
    }
    let first = reference()
    return (ours(), first)
}
