import Foundation

// `scripts/bench check`: `mailto-route check --offline` must answer in under 100 ms
//, next to `gio mime x-scheme-handler/mailto`, which asks GIO one question of
// the many the check asks.

/// `mailto-route check --offline` in a sandbox with a mail program, mailto-route
/// registered, an account (its password in the file) and the ask policy: every part of
/// the offline check has something to read. Alternating with `gio mime` in each round;
/// the figure is the median.
func benchCheck() {
    let sandbox = BenchSandbox(name: "check")
    defer { sandbox.remove() }
    let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("mailto-route").path
    let config = "\(sandbox.root)/home/.config/mailto-route/config"
    try? FileManager.default.createDirectory(atPath: "\(sandbox.root)/home/.config/mailto-route", withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: config, contents: Data("""
        [account]
        from=Jane Doe <jane@example.org>
        host=smtp.example.org
        port=587
        user=jane@example.org
        password=not-a-real-one

        [route]
        policy=ask

        """.utf8), attributes: [.posixPermissions: 0o600])
    guard measure([binary, "register"], environment: sandbox.environment).status == 0 else {
        FileHandle.standardError.write(Data("bench: check: mailto-route register failed\n".utf8))
        exit(1)
    }
    let check = [binary, "check", "--offline"]
    let gio = ["gio", "mime", "x-scheme-handler/mailto"]
    for _ in 0..<3 {
        _ = measure(check, environment: sandbox.environment)
        _ = measure(gio, environment: sandbox.environment)
    }
    var checkTimes: [Double] = []
    var gioTimes: [Double] = []
    var statuses = Set<Int32>()
    for _ in 0..<31 {
        let run = measure(check, environment: sandbox.environment)
        statuses.insert(run.status)
        checkTimes.append(run.seconds * 1000)
        gioTimes.append(measure(gio, environment: sandbox.environment).seconds * 1000)
    }
    let checkMedian = median(checkTimes)
    let gioMedian = median(gioTimes)
    print("check: mailto-route check --offline " + Target.atMost(100, " ms").judge(checkMedian, format: "%.1f")
        + String(format: "; gio mime %.1f ms; ", gioMedian)
        + untargeted(checkMedian / gioMedian, reference: "gio mime") + "; exit " + statuses.sorted().map(String.init).joined(separator: ","))
}
