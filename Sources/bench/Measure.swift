import Foundation

// Running the programs a benchmark compares, the same way for each of them.

/// A finished child: exit status, wall time, peak RSS (wait4's ru_maxrss, in KB).
struct Measured {
    var status: Int32
    var seconds: Double
    var maxRSSKB: Int
}

/// Runs `argv` with posix_spawn and waits with wait4, for its time and peak RSS. Standard
/// input from `stdinPath` (or /dev/null); output discarded unless `keepOutput`.
func measure(_ argv: [String], environment: [String: String]? = nil, stdinPath: String? = nil) -> Measured {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath ?? "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/tmp/bench-send-stderr.log", O_WRONLY | O_CREAT | O_APPEND, 0o644)
    let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { cArgs.forEach { free($0) } }
    let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    let cEnv: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
    defer { cEnv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    guard posix_spawnp(&pid, argv[0], &actions, nil, cArgs, cEnv) == 0 else {
        return Measured(status: -1, seconds: 0, maxRSSKB: 0)
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return Measured(status: (status >> 8) & 0xFF, seconds: seconds, maxRSSKB: usage.ru_maxrss)
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
