import Check
import Foundation
import MailtoRoute
import Testing

/// The Email portal's backend rule of each xdg-desktop-portal version, on fixture trees
/// (Tests/CheckTests/PortalTrees/NAME: `.portal` files and portals.conf files laid out as an
/// installation has them, with `expected` saying, per version and XDG_CURRENT_DESKTOP, the
/// winner, the backends offering Email and the files refused), read as `check` reads them.
@Suite struct PortalTreeTests {
    static let trees = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("PortalTrees")

    /// One line of `expected`: `VERSION DESKTOP: WINNER | OFFERING... | REJECTED...`.
    struct Case: CustomStringConvertible, Sendable {
        var tree: String
        var version: String
        var desktop: String
        var winner: String?
        var offering: [String]
        var rejected: [String]
        var description: String { "\(tree): \(version) on \(desktop)" }
    }

    static var cases: [Case] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: trees.path)) ?? []
        return names.sorted().flatMap { tree -> [Case] in
            let text = (try? String(contentsOf: trees.appendingPathComponent("\(tree)/expected"), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
                let parts = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                let head = parts[0].split(separator: " ")
                guard parts.count == 3, head.count == 3 else { return nil }
                let winner = String(head[2])
                return Case(tree: tree, version: String(head[0]), desktop: String(head[1].dropLast()),
                            winner: winner == "none" ? nil : winner,
                            offering: parts[1].split(separator: " ").map(String.init),
                            rejected: parts[2].split(separator: " ").map(String.init))
            }
        }
    }

    @Test func everyTreeSaysWhatItExpects() {
        #expect(Self.cases.count >= 12, "\(Self.trees.path)")
    }

    @Test(arguments: cases)
    func theRuleOfTheVersionPicksTheExpectedBackend(_ expected: Case) {
        let root = Self.trees.appendingPathComponent(expected.tree).path
        let facts = EmailBackends.gather(
            executable: root + "/usr/libexec/xdg-desktop-portal", versionOutput: "xdg-desktop-portal \(expected.version)\n",
            environment: PortalEnvironment(portalDirectory: nil, currentDesktop: expected.desktop, configHome: root + "/home/.config",
                                           configDirs: [root + "/etc/xdg"], dataHome: root + "/home/.local/share",
                                           dataDirs: [root + "/usr/local/share"]))
        #expect(facts.winner?.fileName == expected.winner, "\(facts.how)")
        #expect(facts.offering.map(\.fileName) == expected.offering)
        #expect(facts.rejected.map(\.fileName) == expected.rejected)
    }
}
