import Foundation
import MailtoCore

// `make bench`: each figure next to a reference measured in the same run, as a ratio
// (absolute times on shared machines are noise; ratios in one run are not).

/// Runs `body` over `urls` repeatedly for about `seconds` and returns URLs per second.
func rate(_ urls: [String], seconds: Double = 1.5, _ body: (String) -> Int) -> (perSecond: Double, checksum: Int) {
    var checksum = 0
    var count = 0
    let start = DispatchTime.now().uptimeNanoseconds
    var elapsed: Double = 0
    repeat {
        for url in urls { checksum &+= body(url) }
        count += urls.count
        elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    } while elapsed < seconds
    return (Double(count) / elapsed, checksum)
}

/// A realistic mix: what web pages, mailing-list archives and programs put in links.
let parseCorpus: [String] = [
    "mailto:chris@example.com",
    "mailto:infobot@example.com?subject=current-issue",
    "mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index",
    "mailto:list@example.org?In-Reply-To=%3C3469A91.D10AF4C@example.com%3E",
    "mailto:joe@example.com?cc=bob@example.com&body=hello",
    "mailto:?to=addr1@an.example,addr2@an.example&subject=Meeting%20notes",
    "mailto:user@example.org?subject=caf%C3%A9&body=caf%C3%A9",
    "mailto:sales@shop.example?subject=Order%20%2312345&body=Hello%2C%0D%0A%0D%0AI%20would%20like%20to%20ask%20about%20my%20order.%0D%0A%0D%0AThanks",
    "mailto:support@example.net?subject=Bug%20report%3A%20crash%20on%20start&cc=dev@example.net&bcc=archive@example.net",
    "mailto:Jane%20Doe%20%3Cjane@example.org%3E?subject=Hi%20Jane",
    "mailto:newsletter@example.com?subject=unsubscribe",
    "mailto:a@example.com,b@example.com?subject=Re%3A%20lunch%3F&body=Sure%2C%20at%2012%3A30.",
]

/// The reference: the same fields extracted into the same `EmailData` with Foundation's
/// `URLComponents` (decoded path split on commas; query items by name).
func urlComponentsExtract(_ url: String) -> Int {
    guard let components = URLComponents(string: url) else { return 0 }
    var email = EmailData()
    email.to = components.path.split(separator: ",").map { String($0) }
    for item in components.queryItems ?? [] {
        let value = item.value ?? ""
        switch item.name.lowercased() {
        case "to": email.to += value.split(separator: ",").map { String($0) }
        case "cc": email.cc += value.split(separator: ",").map { String($0) }
        case "bcc": email.bcc += value.split(separator: ",").map { String($0) }
        case "subject": email.subject = value
        case "body": email.body = value
        case let name where EmailData.safeHeaderNames.contains(name): email.headers[name] = value
        default: email.dropped.append(DroppedField(name: item.name, reason: .unknown))
        }
    }
    return checksum(email)
}

func checksum(_ email: EmailData) -> Int {
    email.to.count &+ email.cc.count &+ email.bcc.count &+ (email.subject?.utf8.count ?? 0)
        &+ (email.body?.utf8.count ?? 0) &+ email.headers.count &+ email.dropped.count
}

func parseExtract(_ url: String) -> Int {
    do {
        return checksum(try MailtoURL.parse(url))
    } catch {
        return 0
    }
}

/// The floor under any parser that returns an `EmailData`: building the same values
/// (fresh strings and arrays, as a parse allocates them) from already-parsed results,
/// without reading a URL at all.
let parsedCorpus: [String: EmailData] = Dictionary(uniqueKeysWithValues: parseCorpus.compactMap { url in
    (try? MailtoURL.parse(url)).map { (url, $0) }
})

/// A new string with its own storage, as a parser makes one.
func fresh(_ text: String) -> String {
    String(unsafeUninitializedCapacity: text.utf8.count) { buffer in
        _ = buffer.initialize(from: text.utf8)
        return text.utf8.count
    }
}

func floorExtract(_ url: String) -> Int {
    guard let parsed = parsedCorpus[url] else { return 0 }
    var email = EmailData()
    email.to = parsed.to.map { fresh($0) }
    email.cc = parsed.cc.map { fresh($0) }
    email.bcc = parsed.bcc.map { fresh($0) }
    email.subject = parsed.subject.map { fresh($0) }
    email.body = parsed.body.map { fresh($0) }
    for (name, value) in parsed.headers { email.headers[name] = fresh(value) }
    return checksum(email)
}

func benchParse() {
    // Warm each up once, so none pays for first-touch costs inside its measurement.
    for body in [parseExtract, urlComponentsExtract, floorExtract] { _ = rate(parseCorpus, seconds: 0.2, body) }
    let ours = rate(parseCorpus, parseExtract)
    let reference = rate(parseCorpus, urlComponentsExtract)
    let floor = rate(parseCorpus, floorExtract)
    print(String(format: "parse: %.0f URLs/s; URLComponents: %.0f URLs/s; ratio: %.1f",
                 ours.perSecond, reference.perSecond, ours.perSecond / reference.perSecond))
    print(String(format: "  (building the same EmailData values without parsing: %.0f URLs/s, ratio %.1f)",
                 floor.perSecond, floor.perSecond / reference.perSecond))
}

// MARK: - handoff

/// Runs `argv` with `environment`, output discarded, and returns its wall time in ms, or
/// `nil` when it could not be started.
func timedRun(_ argv: [String], environment: [String: String]) -> (ms: Double, status: Int32)? {
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let cArgv = argv.map { strdup($0) } + [nil]
    let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (cArgv + cEnv).forEach { free($0) } }
    var pid: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    guard posix_spawnp(&pid, argv[0], &actions, nil, cArgv, cEnv) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    return (ms, (status >> 8) & 0xFF)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// `mailto-route open URL` against `gio open URL` (and `xdg-email URL`), all to the same
/// recording handler in a sandbox of their own, alternating in each round; the figure is
/// the median of the per-round ratios.
func benchHandoff() {
    let fm = FileManager.default
    let root = fm.temporaryDirectory.appendingPathComponent("mailto-route-bench-\(getpid())").path
    defer { try? fm.removeItem(atPath: root) }
    for directory in ["home/.config", "home/.local/share/applications", "home/.local/state", "home/.cache",
                      "usr/share/applications", "etc/xdg", "bin", "run"] {
        try? fm.createDirectory(atPath: "\(root)/\(directory)", withIntermediateDirectories: true)
    }
    let record = "\(root)/argv"
    _ = fm.createFile(atPath: "\(root)/bin/recorder", contents: Data("#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(record)'\n".utf8),
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
    var environment = ProcessInfo.processInfo.environment
    for key in environment.keys where key.hasPrefix("XDG_") { environment[key] = nil }
    environment["DISPLAY"] = nil
    environment["WAYLAND_DISPLAY"] = nil
    environment["MAILTO_ROUTE_HANDOFF"] = nil
    environment["HOME"] = "\(root)/home"
    environment["XDG_CONFIG_HOME"] = "\(root)/home/.config"
    environment["XDG_DATA_HOME"] = "\(root)/home/.local/share"
    environment["XDG_STATE_HOME"] = "\(root)/home/.local/state"
    environment["XDG_CACHE_HOME"] = "\(root)/home/.cache"
    environment["XDG_RUNTIME_DIR"] = "\(root)/run"
    environment["XDG_DATA_DIRS"] = "\(root)/usr/share"
    environment["XDG_CONFIG_DIRS"] = "\(root)/etc/xdg"
    environment["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
    _ = timedRun(["update-desktop-database", "\(root)/usr/share/applications"], environment: environment)
    // xdg-email has no method at all without a desktop or an X display (it fails where
    // mailto-route and gio work); a display name is enough for its generic path.
    var xdgEnvironment = environment
    xdgEnvironment["DISPLAY"] = ":99"

    let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("mailto-route").path
    let url = "mailto:jane@example.org?subject=Quarterly%20report&body=Hi%20Jane%2C%0D%0Asee%20below."

    /// One launch, then waiting for the handler to have run, so that it does not share
    /// the CPU with the next measurement.
    func launch(_ argv: [String], _ environment: [String: String]) -> Double? {
        try? fm.removeItem(atPath: record)
        guard let run = timedRun(argv, environment: environment) else { return nil }
        let deadline = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
        while !fm.fileExists(atPath: record), DispatchTime.now().uptimeNanoseconds < deadline { usleep(1_000) }
        return fm.fileExists(atPath: record) ? run.ms : nil
    }

    let ours = [binary, "open", url]
    let gio = ["gio", "open", url]
    let xdg = ["xdg-email", url]
    for _ in 0..<3 {
        _ = launch(ours, environment)
        _ = launch(gio, environment)
    }
    var ratios: [Double] = []
    var oursTimes: [Double] = []
    var gioTimes: [Double] = []
    var xdgTimes: [Double] = []
    for round in 0..<41 {
        // Alternate who goes first, so that neither always runs on a warmer cache.
        let pair = round % 2 == 0
            ? (launch(ours, environment), launch(gio, environment))
            : ({ let g = launch(gio, environment); return (launch(ours, environment), g) }())
        guard let oursMs = pair.0, let gioMs = pair.1 else {
            FileHandle.standardError.write(Data("bench: handoff: a launch did not reach the handler\n".utf8))
            exit(1)
        }
        oursTimes.append(oursMs)
        gioTimes.append(gioMs)
        ratios.append(oursMs / gioMs)
        if round % 4 == 0, let xdgMs = launch(xdg, xdgEnvironment) { xdgTimes.append(xdgMs) }
    }
    let xdgText = xdgTimes.isEmpty ? "failed" : String(format: "%.1f ms", median(xdgTimes))
    print(String(format: "handoff: mailto-route open %.1f ms; gio open %.1f ms; ratio %.2f; xdg-email %@",
                 median(oursTimes), median(gioTimes), median(ratios), xdgText))
}

let sections: [String: () -> Void] = ["parse": benchParse, "handoff": benchHandoff]
let order = ["parse", "handoff"]
let wanted = CommandLine.arguments.count > 1 ? Array(CommandLine.arguments.dropFirst()) : order
for name in wanted {
    guard let section = sections[name] else {
        FileHandle.standardError.write(Data("bench: unknown section '\(name)' (known: \(order.joined(separator: ", ")))\n".utf8))
        exit(64)
    }
    section()
}
