import Foundation
import Testing
import TestSupport

/// Each command's own help (`help CMD`, `CMD --help`, `CMD -h`), compared as a whole with
/// its snapshot in Snapshots/help-CMD.txt: a change to what users read is made on purpose.
@Suite struct CommandHelpTests {
    static let commands = ["open", "send", "compose", "check", "parse", "register", "unregister", "portal", "outbox", "drafts", "log", "account", "route", "webmail"]

    @Test(arguments: commands)
    func helpOfEachCommandMatchesItsSnapshotAllThreeWays(command: String) throws {
        let sandbox = try Sandbox()
        let snapshot = try String(
            contentsOf: packageRoot.appendingPathComponent("Tests/CLITests/Snapshots/help-\(command).txt"), encoding: .utf8)
        for arguments in [["help", command], [command, "--help"], [command, "-h"]] {
            let result = try mailtoRoute(arguments, in: sandbox)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.stderr.isEmpty, "\(arguments)")
            #expect(result.stdout == snapshot, "\(arguments)")
        }
    }

    /// `--help` wins over whatever else the line holds, and a `--help` that is the value
    /// of an option, or after `--`, is that value, not a request for help.
    @Test func helpAmongOtherWordsStillShowsHelpButNotAsAValue() throws {
        let sandbox = try Sandbox()
        let help = try mailtoRoute(["help", "parse"], in: sandbox).stdout
        #expect(try mailtoRoute(["parse", "--bogus", "--help"], in: sandbox).status == 64)
        #expect(try mailtoRoute(["parse", "mailto:a@x", "--help"], in: sandbox).stdout == help)
        #expect(try mailtoRoute(["--check", "--help"], in: sandbox).stdout
            == (try mailtoRoute(["help", "check"], in: sandbox).stdout))
        let asValue = try mailtoRoute(["parse", "--json", "--", "--help"], in: sandbox)
        #expect(asValue.status == 65, "\(asValue)")
        #expect(asValue.stdout != help)
    }

    @Test func helpOfAnUnknownCommandIsAUsageErrorThatSuggests() throws {
        let sandbox = try Sandbox()
        let result = try mailtoRoute(["help", "sedn"], in: sandbox)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("mailto-route: unknown command 'sedn'; did you mean 'send'?\n"))
        #expect(try mailtoRoute(["help"], in: sandbox).stdout == (try mailtoRoute(["--help"], in: sandbox).stdout))
    }

    /// A person reads these in a terminal: no line is wider than 80 columns.
    @Test(arguments: commands)
    func helpFitsEightyColumns(command: String) throws {
        let sandbox = try Sandbox()
        for line in try mailtoRoute(["help", command], in: sandbox).stdout.split(separator: "\n") {
            #expect(line.count <= 80, "\(line)")
        }
    }

    /// A usage error points at the help of the command it was made in.
    @Test func aUsageErrorPointsAtItsCommandsHelp() throws {
        let sandbox = try Sandbox()
        let result = try mailtoRoute(["log", "--count", "zero"], in: sandbox)
        #expect(result.status == 64)
        #expect(result.stderr.hasSuffix("Try 'mailto-route log --help' for more information.\n"), "\(result)")
    }
}
