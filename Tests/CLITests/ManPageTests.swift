import Foundation
import Testing
import TestSupport

/// The man page: groff's own checks are the judge, and it documents what the binary does.
@Suite struct ManPageTests {
    let page = packageRoot.appendingPathComponent("data/mailto-route.1").path

    @Test func groffFindsNothingToWarnAbout() throws {
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
        for status in ["0", "1", "3", "4", "64", "65", "75", "78"] {
            #expect(rendered.contains("\n       \(status) "), "exit status \(status)")
        }
    }

    /// mandoc's lint finds no warning either (its style notes, such as long source lines,
    /// are not warnings).
    @Test func mandocFindsNothingToWarnAbout() throws {
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
        for variable in ["VISUAL", "EDITOR", "TERMINAL", "MAILTO_ROUTE_HANDOFF", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
                         "XDG_DATA_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS", "XDG_CURRENT_DESKTOP", "TZ"] {
            #expect(environment.contains(variable), "\(variable)")
        }
        let configuration = section("CONFIGURATION")
        for key in ["from", "host", "port", "security", "user", "password", "password-command", "ca-file",
                    "allow-plaintext", "timeout", "policy", "handler", "consent-timeout"] {
            #expect(configuration.contains("\n       \(key)="), "\(key)")
        }
    }
}
