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
}
