import Foundation
import MailtoRoute
import Testing
import TestSupport

/// The man page: groff's own checks are the judge, and it documents what the binary does.
@Suite struct ManPageTests {
    let page = packageRoot.appendingPathComponent("data/mailto-route.1").path

    /// The pages `make install` installs: the binary's, the desktop service's and the address books helper's.
    static let pages = ["data/mailto-route.1", "data/mailto-route-desktop.1", "data/mailto-route-books.1"]

    @Test(arguments: pages) func groffFindsNothingToWarnAbout(_ page: String) throws {
        let page = packageRoot.appendingPathComponent(page).path
        let result = try run("/usr/bin/groff", ["-ww", "-man", "-Tutf8", "-z", page],
                             environment: ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    /// Every command and exit status `--help` lists is in the page too.
    @Test func listsEveryCommandAndExitStatusOfTheHelp() throws {
        let rendered = try run("/usr/bin/groff", ["-man", "-Tascii", "-P-cbou", page],
                               environment: ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]).stdout
        let sandbox = try Sandbox()
        let help = try mailtoRoute(["--help"], in: sandbox).stdout
        for line in help.split(separator: "\n") where line.hasPrefix("  mailto-route ") {
            let command = line.split(separator: " ")[1]
            guard !command.hasPrefix("[") && !command.hasPrefix("-") else { continue }
            // Each has an entry under COMMANDS (alone, or beside its pair).
            #expect(rendered.contains("\n       \(command)") || rendered.contains(", \(command)"), "\(command)")
        }
        // The statuses as the program itself lists them (`--help`'s Exit status table).
        let statuses = help.components(separatedBy: "\nExit status:\n").last?.split(separator: "\n")
            .compactMap { $0.split(separator: " ").first.flatMap { Int($0) } } ?? []
        #expect(statuses.count >= 9, "\(help)")
        for status in statuses {
            #expect(rendered.contains("\n       \(status)\n") || rendered.contains("\n       \(status) "), "exit status \(status)")
        }
    }

    /// mandoc's lint finds no warning either (its style notes, such as long source lines,
    /// are not warnings).
    @Test(arguments: pages) func mandocFindsNothingToWarnAbout(_ page: String) throws {
        let page = packageRoot.appendingPathComponent(page).path
        let result = try run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", page],
                             environment: ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"])
        #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
    }

    /// ENVIRONMENT names every variable mailto-route reads or sets, and CONFIGURATION every
    /// key of [account] and [route], each as an entry of its own.
    @Test func documentsEveryVariableAndEveryConfigKey() throws {
        let rendered = try run("/usr/bin/groff", ["-man", "-Tascii", "-P-cbou", page],
                               environment: ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]).stdout
        func section(_ name: String) -> String {
            guard let start = rendered.range(of: "\n\(name)\n") else { return "" }
            let rest = rendered[start.upperBound...]
            // The next section heading starts a line with a capital letter.
            let end = rest.range(of: "\n[A-Z][A-Z ]+\n", options: .regularExpression)?.lowerBound ?? rest.endIndex
            return String(rest[..<end])
        }
        let environment = section("ENVIRONMENT")
        // The variables as the program reads them: every getenv("NAME") and Session's
        // value("NAME") in Sources/, and the XDG base directories GLib reads for it.
        let read = try variablesReadBySources()
        #expect(read.isSuperset(of: ["VISUAL", "TERMINAL", "DISPLAY", "XDG_ACTIVATION_TOKEN"]), "\(read.sorted())")
        for variable in read.union(["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS", "TZ"]) {
            #expect(environment.contains(variable), "\(variable) is read but not in the man page's ENVIRONMENT")
        }
        // The keys as the program reads them: the lists its configuration checks a file
        // against (any other key is a mistake there).
        let configuration = section("CONFIGURATION")
        for key in Account.keys.union(RouteSettings.keys) {
            #expect(configuration.contains("\n       \(key)="), "\(key) is read but not in the man page's CONFIGURATION")
        }
    }
}

/// The names of the environment variables Sources/ reads: `getenv("NAME")`, and
/// `value("NAME")` (Session's reader of its environment).
func variablesReadBySources() throws -> Set<String> {
    let sources = packageRoot.appendingPathComponent("Sources")
    var names: Set<String> = []
    let pattern = try NSRegularExpression(pattern: #"(?:getenv|value)\("([A-Z][A-Z0-9_]*)"\)"#)
    for case let file as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) ?? FileManager.DirectoryEnumerator()
    where file.pathExtension == "swift" && !file.path.contains("/bench/") {
        let text = try String(contentsOf: file, encoding: .utf8)
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            if let range = Range(match.range(at: 1), in: text) { names.insert(String(text[range])) }
        }
        // The click's token is read by name from a list, in the environment and in the
        // block the process was started with (ClickTokenEnvironment.names).
        if file.lastPathComponent == "ClickTokenEnvironment.swift" {
            let list = try NSRegularExpression(pattern: #"static let names = \[([^\]]*)\]"#)
            let quoted = try NSRegularExpression(pattern: #""([A-Z][A-Z0-9_]*)""#)
            for match in list.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let inside = String(text[range])
                for name in quoted.matches(in: inside, range: NSRange(inside.startIndex..., in: inside)) {
                    if let found = Range(name.range(at: 1), in: inside) { names.insert(String(inside[found])) }
                }
            }
        }
    }
    return names
}
