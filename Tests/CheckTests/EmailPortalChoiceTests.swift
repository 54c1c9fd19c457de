import Check
import Foundation
import MailtoRoute
import Testing

/// `mailto-route portal enable | disable` on a portal installation under a temporary prefix
/// (`PortalTree`: its `.portal` files, its portals.conf files, the user's config and state
/// directories), the version given as its `--version` would print it, as `check` reads it.
@Suite struct EmailPortalChoiceTests {
    let tree: PortalTree
    let choice: EmailPortalChoice
    var userDirectory: String { tree.configHome + "/xdg-desktop-portal" }
    var systemDirectory: String { tree.prefix + "/share/xdg-desktop-portal" }

    init() throws {
        tree = try PortalTree()
        try tree.gtk()
        try tree.installMailtoRoute()
        choice = EmailPortalChoice(stateDirectory: tree.root + "/home/.local/state/mailto-route")
    }

    func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    /// A user's file as people write them: comments, blank lines, blanks around `=`, other
    /// keys and groups, and (the second) no newline at its end.
    static let userFiles = [
        "# mine\n[preferred]\n  default = gnome ;gtk;\n\n# the files\norg.freedesktop.impl.portal.FileChooser=gtk\n\n[other]\nkey=1\n",
        "[preferred]\ndefault=gnome;gtk\norg.freedesktop.impl.portal.Email =\tgtk ;\n# end\norg.freedesktop.impl.portal.Secret=gnome-keyring",
    ]

    @Test(arguments: userFiles)
    func enableThenDisableLeavesTheUsersFileByteIdentical(_ text: String) throws {
        let path = userDirectory + "/gnome-portals.conf"
        try tree.write(text, to: path)
        let original = try #require(bytes(path))
        #expect(!tree.gather("1.18.4", desktop: "GNOME").mailtoRouteWins)

        let enabled = try choice.enable(tree.gather("1.18.4", desktop: "GNOME"))
        #expect(enabled == .set(file: path, copiedFrom: nil, created: false))
        let after = try #require(bytes(path))
        #expect(String(decoding: after, as: UTF8.self).contains("\norg.freedesktop.impl.portal.Email=mailtoroute"))
        // One line more, or one line changed: every other line is the same.
        let before = text.split(separator: "\n", omittingEmptySubsequences: false)
        let lines = String(decoding: after, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.filter { !$0.hasPrefix("org.freedesktop.impl.portal.Email") }
            == before.filter { !$0.hasPrefix("org.freedesktop.impl.portal.Email") })
        #expect(tree.gather("1.18.4", desktop: "GNOME").mailtoRouteWins)
        #expect(choice.enabledFile == path)
        #expect(try choice.enable(tree.gather("1.18.4", desktop: "GNOME")) == .already(file: path))

        #expect(try choice.disable() == .restored(file: path))
        #expect(bytes(path) == original)
        #expect(choice.enabledFile == nil)
        #expect(try choice.disable() == .notEnabled)
    }

    @Test func enableWithNoUserFileCopiesTheDesktopsAndDisableLeavesNoFile() throws {
        let system = systemDirectory + "/gnome-portals.conf"
        try tree.write("[preferred]\ndefault=gnome;gtk;\norg.freedesktop.impl.portal.Secret=gnome-keyring\n", to: system)
        let systemBytes = try #require(bytes(system))
        let enabled = try choice.enable(tree.gather("1.18.4", desktop: "ubuntu:GNOME"))
        // Named for the first desktop: a plain portals.conf would be read on every desktop.
        let copy = userDirectory + "/ubuntu-portals.conf"
        #expect(enabled == .set(file: copy, copiedFrom: system, created: true))
        #expect(String(decoding: try #require(bytes(copy)), as: UTF8.self)
            == "[preferred]\ndefault=gnome;gtk;\norg.freedesktop.impl.portal.Secret=gnome-keyring\n"
            + "org.freedesktop.impl.portal.Email=mailtoroute\n")
        let facts = tree.gather("1.18.4", desktop: "ubuntu:GNOME")
        #expect(facts.config == copy)
        #expect(facts.mailtoRouteWins, "\(facts.how)")

        #expect(try choice.disable() == .removed(file: copy))
        #expect(!FileManager.default.fileExists(atPath: copy))
        #expect(bytes(system) == systemBytes)
        #expect(tree.gather("1.18.4", desktop: "ubuntu:GNOME").config == system)
    }

    @Test func withNoPortalsConfAnywhereEnableMakesAMinimalOne() throws {
        let enabled = try choice.enable(tree.gather("1.17.0", desktop: "XFCE"))
        let made = userDirectory + "/xfce-portals.conf"
        #expect(enabled == .set(file: made, copiedFrom: nil, created: true))
        #expect(bytes(made) == Array("[preferred]\norg.freedesktop.impl.portal.Email=mailtoroute\n".utf8))
        #expect(tree.gather("1.17.0", desktop: "XFCE").mailtoRouteWins)
        #expect(try choice.disable() == .removed(file: made))
        #expect(!FileManager.default.fileExists(atPath: made))
    }

    @Test func disableAfterTheUserChangedTheFileGivesBackOnlyTheEmailLine() throws {
        let path = userDirectory + "/portals.conf"
        try tree.write("[preferred]\norg.freedesktop.impl.portal.Email=gtk\ndefault=gtk\n", to: path)
        _ = try choice.enable(tree.gather("1.18.4", desktop: nil))
        #expect(bytes(path) == Array("[preferred]\norg.freedesktop.impl.portal.Email=mailtoroute\ndefault=gtk\n".utf8))
        // The user adds a line of their own after enable: it stays.
        try tree.write("[preferred]\norg.freedesktop.impl.portal.Email=mailtoroute\ndefault=gtk\n# mine\n", to: path)
        #expect(try choice.disable() == .lineRestored(file: path))
        #expect(bytes(path) == Array("[preferred]\norg.freedesktop.impl.portal.Email=gtk\ndefault=gtk\n# mine\n".utf8))
    }

    @Test func version116ReadsNoPortalsConfAndEnableChangesNothing() throws {
        let facts = tree.gather("1.16.0", desktop: "GNOME")
        #expect(throws: DesktopError.self) { try choice.enable(facts) }
        do {
            _ = try choice.enable(facts)
        } catch {
            #expect(error.message.hasPrefix("xdg-desktop-portal 1.16.0 reads no portals.conf"), "\(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: userDirectory))
        #expect(choice.enabledFile == nil)
        // What check advises instead: the package's own file for 1.16, no file for root to copy.
        #expect(facts.steps.allSatisfy { !$0.contains("as root") }, "\(facts.steps)")
        #expect(facts.steps.first?.hasPrefix("install data/00-mailtoroute.portal") == true, "\(facts.steps)")
    }

    @Test func enableRefusesToNameABackendThatIsNotInstalled() throws {
        let bare = try PortalTree()
        try bare.gtk()
        let other = EmailPortalChoice(stateDirectory: bare.root + "/state")
        #expect(throws: DesktopError.self) { try other.enable(bare.gather("1.18.4", desktop: "GNOME")) }
        #expect(!FileManager.default.fileExists(atPath: bare.configHome + "/xdg-desktop-portal"))
    }

    @Test func aFileThatCannotBeWrittenIsOneLineNamingIt() throws {
        let path = userDirectory + "/gnome-portals.conf"
        try tree.write("[preferred]\ndefault=gtk\n", to: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: userDirectory)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: userDirectory) }
        // Root writes anywhere: nothing to test there.
        guard getuid() != 0 else { return }
        do {
            _ = try choice.enable(tree.gather("1.18.4", desktop: "GNOME"))
            Issue.record("enable wrote into a read-only directory")
        } catch {
            #expect(error.message == "cannot write \(path): Permission denied")
        }
        #expect(bytes(path) == Array("[preferred]\ndefault=gtk\n".utf8))
    }

    @Test func checkFlagsAPortalsConfNamingABackendWithNoPortalFile() throws {
        let path = userDirectory + "/gnome-portals.conf"
        try tree.write("[preferred]\ndefault=gnome;gtk\norg.freedesktop.impl.portal.Email=mailtoroute\n", to: path)
        try FileManager.default.removeItem(atPath: tree.portals + "/mailtoroute.portal")
        let facts = tree.gather("1.18.4", desktop: "GNOME")
        #expect(facts.missingBackends == [CheckReport.MissingBackend(key: "default", name: "gnome"),
                                          CheckReport.MissingBackend(key: EmailBackends.interface, name: "mailtoroute")])
        let rows = facts.rows.filter { $0.label == "names no backend" }.map(\.value)
        #expect(rows == ["default= names gnome, which has no .portal file in \(tree.portals)",
                         "org.freedesktop.impl.portal.Email= names mailtoroute, which has no .portal file in \(tree.portals)"])
    }
}
