import Foundation
import TestSupport

// `scripts/bench handoff`: the handoff path against `gio open` and `xdg-email`.

/// `mailto-route open URL` against `gio open URL` (and `xdg-email URL`), all to the same
/// recording handler in a sandbox of their own, alternating in each round; the figure is
/// the median of the per-round ratios.
func benchHandoff() {
    let fm = FileManager.default
    let sandbox = BenchSandbox(name: "handoff")
    defer { sandbox.remove() }
    let record = sandbox.record
    let environment = sandbox.environment
    // xdg-email has no method at all without a desktop or an X display (it fails where
    // mailto-route and gio work); a display name is enough for its generic path.
    var xdgEnvironment = environment
    xdgEnvironment["DISPLAY"] = ":99"

    let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("mailto-route").path
    let url = "mailto:jane@example.org?subject=Quarterly%20report&body=Hi%20Jane%2C%0D%0Asee%20below."

    /// One launch: the milliseconds from the click until the mail program has the link
    /// (what a person waits for), and until the command has returned (what a script that
    /// runs it waits for: `gio open` returns before its handler has run, mailto-route after,
    /// since it watches the program for failing at once).
    func launch(_ argv: [String], _ environment: [String: String]) -> (link: Double, returned: Double)? {
        try? fm.removeItem(atPath: record)
        let run = measure(argv, environment: environment, untilCreated: record)
        guard run.status >= 0, let created = run.createdSeconds else { return nil }
        return (created * 1000, run.seconds * 1000)
    }

    let ours = [binary, "open", url]
    let gio = ["gio", "open", url]
    let xdg = ["xdg-email", url]
    for _ in 0..<3 {
        _ = launch(ours, environment)
        _ = launch(gio, environment)
    }
    var xdgTimes: [Double] = []
    var returned: (ours: [Double], reference: [Double]) = ([], [])
    let times = PairedTimes(
        rounds: 101, failure: "handoff: a launch did not reach the handler",
        ours: {
            let run = launch(ours, environment)
            if let run { returned.ours.append(run.returned) }
            return run?.link
        },
        reference: {
            let run = launch(gio, environment)
            if let run { returned.reference.append(run.returned) }
            return run?.link
        },
        between: { round in
            if round % 4 == 0, let xdg = launch(xdg, xdgEnvironment) { xdgTimes.append(xdg.link) }
        })
    let xdgText = xdgTimes.isEmpty ? "failed" : String(format: "%.1f ms", median(xdgTimes))
    let spread = times.ratios.sorted()
    print(String(format: """
        handoff, until the mail program has the link: mailto-route open %.1f ms; gio open %.1f ms; %@ \
        (middle half of the rounds %.2f–%.2f); xdg-email %@
        """, median(times.ours), median(times.reference), Target.atMost(1.1, "×").judge(median(times.ratios), reference: "gio open"),
        spread[spread.count / 4], spread[spread.count * 3 / 4], xdgText))
    let returnRatios = zip(returned.ours, returned.reference).map { $0 / $1 }
    print(String(format: """
        handoff, until the command has returned: mailto-route open %.1f ms; gio open %.1f ms; %@
        """, median(returned.ours), median(returned.reference), untargeted(median(returnRatios), reference: "gio open")))
}

/// A HOME and XDG_* directories of the bench's own, with one recording mail program as
/// the default `mailto:` handler, as a package and the user would have set it up.
struct BenchSandbox {
    let root: String
    /// Where the recording program writes the argv it was started with.
    var record: String { "\(root)/argv" }
    let environment: [String: String]

    init(name: String) {
        let fm = FileManager.default
        root = fm.temporaryDirectory.appendingPathComponent("mailto-route-bench-\(name)-\(getpid())").path
        for directory in ["home/.config", "home/.local/share/applications", "home/.local/state", "home/.cache",
                          "usr/share/applications", "etc/xdg", "bin", "run"] {
            try? fm.createDirectory(atPath: "\(root)/\(directory)", withIntermediateDirectories: true)
        }
        _ = fm.createFile(atPath: "\(root)/bin/recorder", contents: Data("#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(root)/argv'\n".utf8),
                      attributes: [.posixPermissions: 0o755])
        _ = fm.createFile(atPath: "\(root)/usr/share/applications/recorder.desktop", contents: Data("""
            [Desktop Entry]
            Type=Application
            Name=Recorder
            Exec=\(root)/bin/recorder %u
            MimeType=x-scheme-handler/mailto;

            """.utf8))
        _ = fm.createFile(atPath: "\(root)/home/.config/mimeapps.list",
                      contents: Data("[Default Applications]\nx-scheme-handler/mailto=recorder.desktop\n".utf8))
        var environment = isolatedEnvironment(root: URL(fileURLWithPath: root))
        environment["MAILTO_ROUTE_HANDOFF"] = nil
        self.environment = environment
        _ = measure(["update-desktop-database", "\(root)/usr/share/applications"], environment: environment)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }
}
