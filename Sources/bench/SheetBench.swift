import Foundation

// `scripts/bench sheet`: a click to the compose sheet on screen, against the smallest GTK 4
// window in C (scripts/sheet-bench/minimal-window.c: an AdwApplicationWindow), timed the same way in the same run.

/// From running `mailto-route open URL` (an account, `policy=ask`, a display: the sheet
/// opens) to its window being mapped on the X server, against the C window from its start
/// to its map, both timed by scripts/sheet-bench/map-timer.c on one Xvfb with a session bus
/// and the AT-SPI bus (as a desktop session has them), alternating in each round; the
/// figure is the median of the per-round ratios.
func benchSheet() {
    let fm = FileManager.default
    let sandbox = BenchSandbox(name: "sheet")
    defer { sandbox.remove() }
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let tools = "\(sandbox.root)/tools"
    try? fm.createDirectory(atPath: tools, withIntermediateDirectories: true)
    let build = """
        cc -O2 -o '\(tools)/minimal-window' '\(source.path)/scripts/sheet-bench/minimal-window.c' $(pkg-config --cflags --libs libadwaita-1) &&
        cc -O2 -o '\(tools)/map-timer' '\(source.path)/scripts/sheet-bench/map-timer.c' $(pkg-config --cflags --libs x11)
        """
    guard measure(["/bin/sh", "-c", build]).status == 0 else {
        FileHandle.standardError.write(Data("bench: sheet: cannot build the C reference (cc, pkg-config libadwaita-1 x11)\n".utf8))
        exit(1)
    }

    // The desktop: Xvfb, a session bus, AT-SPI (the sheet tests' own).
    let ready = "\(sandbox.root)/desktop-ready"
    let session = Process()
    session.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    session.arguments = ["\(source.path)/Tests/TestSupport/Servers/desktop-session.py", "--ready", ready, "--dir", sandbox.root]
    var sessionEnvironment = sandbox.environment
    sessionEnvironment["XDG_RUNTIME_DIR"] = "\(sandbox.root)/run"
    session.environment = sessionEnvironment
    session.standardOutput = FileHandle.nullDevice
    session.standardError = FileHandle.nullDevice
    do { try session.run() } catch {
        FileHandle.standardError.write(Data("bench: sheet: cannot start the desktop: \(error)\n".utf8))
        exit(1)
    }
    defer { session.terminate(); session.waitUntilExit() }
    let deadline = Date().addingTimeInterval(20)
    while !fm.fileExists(atPath: ready), Date() < deadline { usleep(20_000) }
    guard let lines = try? String(contentsOfFile: ready, encoding: .utf8).split(separator: "\n"), lines.count == 2 else {
        FileHandle.standardError.write(Data("bench: sheet: the desktop did not start (xvfb, at-spi2-core)\n".utf8))
        exit(1)
    }
    var environment = sandbox.environment
    environment["DISPLAY"] = String(lines[0])
    environment["DBUS_SESSION_BUS_ADDRESS"] = String(lines[1])
    // An account that can send, policy=ask, and the account kept with the chooser's Always
    // (the sandbox's recording mail program is a second way): a click opens the sheet
    // (nothing is sent).
    try? fm.createDirectory(atPath: "\(sandbox.root)/home/.config/mailto-route", withIntermediateDirectories: true)
    _ = fm.createFile(atPath: "\(sandbox.root)/home/.config/mailto-route/config", contents: Data(
        "[route]\nalways=account:default\n[account]\nfrom=Jane Doe <jane@example.org>\nhost=127.0.0.1\nport=9\nsecurity=none\n".utf8))

    let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("mailto-route").path
    let url = "mailto:jane@example.org?subject=Quarterly%20report&body=Hi%20Jane%2C%0D%0Asee%20below."
    let ours = [binary, "open", url]
    let reference = ["\(tools)/minimal-window"]

    /// The milliseconds from start to map, from map-timer's output.
    func timed(_ argv: [String]) -> Double? {
        let out = "\(sandbox.root)/map-timer.out"
        let command = ["\(tools)/map-timer", "20"] + argv
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        guard measure(["/bin/sh", "-c", "\(quoted) > '\(out)'"], environment: environment).status == 0,
              let text = try? String(contentsOfFile: out, encoding: .utf8)
        else { return nil }
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    for _ in 0..<2 {
        _ = timed(ours)
        _ = timed(reference)
    }
    let times = PairedTimes(rounds: 15, failure: "sheet: a window was not mapped within 20 s",
                            ours: { timed(ours) }, reference: { timed(reference) })
    print(String(format: "sheet: mailto-route open to the sheet mapped %.1f ms; minimal libadwaita window in C %.1f ms; %@",
                 median(times.ours), median(times.reference), Target.atMost(1.2, "×").judge(median(times.ratios), reference: "the window in C")))

    // The desktop service running (register installs its D-Bus service files where this
    // session bus looks, under the sandbox's XDG_DATA_HOME): a click is the command line
    // asking the warm service for a sheet. Each sheet is cancelled through the
    // accessibility tree after its round, outside the time, so that none piles up.
    guard measure([binary, "register"], environment: environment).status == 0,
          measure(["dbus-update-activation-environment", "DBUS_SESSION_BUS_ADDRESS=\(lines[1])",
                   "MAILTO_ROUTE_SERVICE_IDLE=600"], environment: environment).status == 0
    else {
        FileHandle.standardError.write(Data("bench: sheet: cannot register the desktop service\n".utf8))
        exit(1)
    }
    let driver = ["/usr/bin/python3", "\(source.path)/Tests/TestSupport/Servers/sheet-driver.py", "--timeout", "10",
                  "press:Cancel", "wait-gone"]
    func warm() -> Double? {
        let ms = timed(ours)
        guard measure(driver, environment: environment).status == 0 else { return nil }
        return ms
    }
    _ = warm()
    let service = PairedTimes(rounds: 15, failure: "sheet: the service's sheet was not mapped, or did not close",
                              ours: warm, reference: { timed(reference) })
    print(String(format: """
        sheet, the desktop service running: mailto-route open to the sheet mapped %.1f ms; \
        minimal libadwaita window in C %.1f ms; %@
        """, median(service.ours), median(service.reference), Target.atMost(0.3, "×").judge(median(service.ratios), reference: "the window in C")))
}
