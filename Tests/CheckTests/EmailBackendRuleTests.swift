import Foundation
import Check
import MailtoRoute
import Testing

/// A portal installation under a temporary prefix: `.portal` files in its datadir and
/// portals.conf files in the XDG directories, read by the rule of the version given
/// (`EmailBackends.gather`, as `check` calls it), never the machine's own.
final class PortalTree {
    let root: String
    var prefix: String { root + "/usr" }
    var executable: String { prefix + "/libexec/xdg-desktop-portal" }
    var portals: String { prefix + "/share/xdg-desktop-portal/portals" }
    var configHome: String { root + "/home/.config" }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("portal-tree-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: portals, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    func backend(_ file: String, bus: String, useIn: String?, interfaces: String = "org.freedesktop.impl.portal.Email;") throws {
        var text = "[portal]\nDBusName=\(bus)\nInterfaces=\(interfaces)\n"
        if let useIn { text += "UseIn=\(useIn)\n" }
        try write(text, to: portals + "/" + file)
    }

    /// The shipped file, as `make install` puts it.
    /// The shipped mailtoroute.portal; with `first`, the package's 00-mailtoroute.portal too.
    func installMailtoRoute(first: Bool = false) throws {
        let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("data")
        for name in ["mailtoroute.portal"] + (first ? ["00-mailtoroute.portal"] : []) {
            try write(try String(contentsOf: data.appendingPathComponent(name), encoding: .utf8), to: portals + "/" + name)
        }
    }

    func gtk() throws {
        try backend("gtk.portal", bus: "org.freedesktop.impl.portal.desktop.gtk", useIn: "gnome",
                    interfaces: "org.freedesktop.impl.portal.FileChooser;org.freedesktop.impl.portal.Email;")
    }

    func gather(_ version: String, desktop: String?, portalDirectory: String? = nil) -> CheckReport.EmailBackend {
        EmailBackends.gather(
            executable: executable, versionOutput: "xdg-desktop-portal \(version)\n",
            environment: PortalEnvironment(portalDirectory: portalDirectory, currentDesktop: desktop, configHome: configHome,
                                           configDirs: [root + "/etc/xdg"], dataHome: root + "/home/.local/share",
                                           dataDirs: [root + "/usr/local/share"]))
    }
}

@Suite struct EmailBackendRuleTests {
    @Test func theRealPortalsVersionOutputSelectsThe116Rule() throws {
        let portal = try #require(EmailBackends.findPortal(), "Debian's xdg-desktop-portal is installed by scripts/install-deps test")
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: portal)
        process.arguments = ["--version"]
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let tree = try PortalTree()
        try tree.gtk()
        try tree.installMailtoRoute()
        let facts = EmailBackends.gather(
            executable: tree.executable, versionOutput: output,
            environment: PortalEnvironment(portalDirectory: nil, currentDesktop: "GNOME", configHome: tree.configHome,
                                           configDirs: [], dataHome: tree.root, dataDirs: []))
        #expect(facts.version == PortalVersion(1, 16, 0), "\(output)")
        #expect(facts.config == nil)
        #expect(facts.portalsDirectory == tree.portals)
        #expect(facts.winner?.fileName == "gtk.portal")
    }

    @Test func noPortalInstalledIsSaidAndNothingElse() {
        let facts = EmailBackends.gather(
            executable: EmailBackends.findPortal(["/nonexistent/libexec/xdg-desktop-portal"]), versionOutput: nil,
            environment: PortalEnvironment(portalDirectory: nil, currentDesktop: "GNOME", configHome: "/h", configDirs: [],
                                           dataHome: "/h", dataDirs: []))
        #expect(facts.executable == nil)
        #expect(facts.version == nil && facts.winner == nil && facts.steps.isEmpty && facts.offering.isEmpty)
    }

    @Test func version116PrefersUseInOfTheDesktopThenTheFileName() throws {
        let tree = try PortalTree()
        try tree.gtk()
        try tree.installMailtoRoute()
        try tree.backend("kde.portal", bus: "org.freedesktop.impl.portal.desktop.kde", useIn: "KDE")
        // GNOME: gtk's UseIn names it; KDE (any case): kde's.
        #expect(tree.gather("1.16.0", desktop: "ubuntu:GNOME").winner?.fileName == "gtk.portal")
        #expect(tree.gather("1.16.0", desktop: "kde").winner?.fileName == "kde.portal")
        // No UseIn names XFCE: the first file by name.
        let xfce = tree.gather("1.16.0", desktop: "XFCE")
        #expect(xfce.winner?.fileName == "gtk.portal")
        #expect(xfce.offering.map(\.fileName) == ["gtk.portal", "kde.portal", "mailtoroute.portal"])
        // Alone, mailto-route's file (UseIn naming no desktop) is taken.
        let alone = try PortalTree()
        try alone.installMailtoRoute()
        let only = alone.gather("1.16.0", desktop: "GNOME")
        #expect(only.mailtoRouteWins)
        #expect(only.steps.isEmpty)
    }

    @Test func version116RefusesAFileWithoutUseInWhich118Takes() throws {
        let tree = try PortalTree()
        try tree.backend("bare.portal", bus: "org.example.Bare", useIn: nil)
        try tree.backend("broken.portal", bus: "not a name", useIn: "gnome")
        let old = tree.gather("1.16.0", desktop: "GNOME")
        #expect(old.offering.isEmpty)
        #expect(old.rejected.map(\.fileName) == ["bare.portal", "broken.portal"])
        #expect(old.rejected.first?.reason.contains("UseIn") == true)
        let new = tree.gather("1.18.4", desktop: "GNOME")
        #expect(new.offering.map(\.fileName) == ["bare.portal"])
        #expect(new.rejected.map(\.fileName) == ["broken.portal"])
    }

    @Test func version116StepsInstallThePackagesFirstFileAndAskForNoRootStep() throws {
        let tree = try PortalTree()
        try tree.gtk()
        // Not installed: the first step installs it; on GNOME gtk.portal still wins, and 1.16
        // has no setting a user could change: the package's 00-mailtoroute.portal is what
        // makes mailto-route win (a file the package owns, gone with it; no root step).
        let before = tree.gather("1.16.0", desktop: "GNOME")
        #expect(before.winner?.fileName == "gtk.portal")
        #expect(before.steps.first?.hasPrefix("install data/mailtoroute.portal to \(tree.portals)/") == true)
        try tree.installMailtoRoute()
        let installed = tree.gather("1.16.0", desktop: "GNOME")
        #expect(installed.winner?.fileName == "gtk.portal")
        #expect(installed.steps.first?.hasPrefix("install data/00-mailtoroute.portal to \(tree.portals)/ (the package does") == true,
                "\(installed.steps)")
        #expect(installed.steps.allSatisfy { !$0.contains("as root") })
        // As the package installs it: mailto-route wins on GNOME, on KDE and on a desktop no
        // UseIn names.
        try tree.installMailtoRoute(first: true)
        for desktop in ["GNOME", "KDE", "XFCE"] {
            let packaged = tree.gather("1.16.0", desktop: desktop)
            #expect(packaged.winner?.fileName == "00-mailtoroute.portal", "\(desktop)")
            #expect(packaged.mailtoRouteWins, "\(desktop)")
        }
    }

    @Test func version118ReadsTheFirstPortalsConfDesktopFileFirstAndTheInterfaceKeyOverDefault() throws {
        let tree = try PortalTree()
        try tree.gtk()
        try tree.installMailtoRoute()
        let system = tree.prefix + "/share/xdg-desktop-portal"
        try tree.write("[preferred]\ndefault=gtk\n", to: system + "/gnome-portals.conf")
        try tree.write("[preferred]\norg.freedesktop.impl.portal.Email=mailtoroute\n", to: system + "/portals.conf")
        // In one directory, DESKTOP-portals.conf (lower-cased) before portals.conf.
        let gnome = tree.gather("1.18.4", desktop: "GNOME")
        #expect(gnome.config == system + "/gnome-portals.conf")
        #expect(gnome.winner?.fileName == "gtk.portal")
        #expect(gnome.how.contains("default="))
        #expect(tree.gather("1.18.4", desktop: "XFCE").mailtoRouteWins)
        // The user's directory before the system's; the interface's own key over default=.
        try tree.write("[preferred]\ndefault=gtk\norg.freedesktop.impl.portal.Email=mailtoroute\n",
                       to: tree.configHome + "/xdg-desktop-portal/portals.conf")
        let user = tree.gather("1.18.4", desktop: "GNOME")
        #expect(user.config == tree.configHome + "/xdg-desktop-portal/portals.conf")
        #expect(user.mailtoRouteWins)
        // 1.18.3: none means no backend at all.
        try tree.write("[preferred]\norg.freedesktop.impl.portal.Email=none\n", to: tree.configHome + "/xdg-desktop-portal/portals.conf")
        #expect(tree.gather("1.18.4", desktop: "GNOME").winner == nil)
        // XDG_DESKTOP_PORTAL_DIR: backends and configuration from there only.
        let override = tree.root + "/override"
        try tree.write("[portal]\nDBusName=\(EmailBackends.busName)\nInterfaces=org.freedesktop.impl.portal.Email;\n",
                       to: override + "/mailtoroute.portal")
        try tree.write("[preferred]\ndefault=mailtoroute\n", to: override + "/portals.conf")
        let overridden = tree.gather("1.18.4", desktop: "GNOME", portalDirectory: override)
        #expect(overridden.config == override + "/portals.conf")
        #expect(overridden.portalsDirectory == override)
        #expect(overridden.mailtoRouteWins)
    }

    @Test func version118StepsAreThePortalEnableCommandWhichMakesMailtoRouteWin() throws {
        let tree = try PortalTree()
        try tree.gtk()
        try tree.installMailtoRoute()
        let system = tree.prefix + "/share/xdg-desktop-portal/gnome-portals.conf"
        try tree.write("[preferred]\ndefault=gnome;gtk\n", to: system)
        let facts = tree.gather("1.18.4", desktop: "GNOME")
        #expect(facts.winner?.fileName == "gtk.portal")
        let userDirectory = tree.configHome + "/xdg-desktop-portal"
        #expect(facts.enableTarget == userDirectory + "/gnome-portals.conf")
        #expect(facts.steps.first == "run mailto-route portal enable: it sets org.freedesktop.impl.portal.Email=mailtoroute in "
            + "\(userDirectory)/gnome-portals.conf (mailto-route portal disable takes it back)")
        #expect(facts.steps.allSatisfy { !$0.contains("as root") })
        // Carried out, the step makes it win.
        let choice = EmailPortalChoice(stateDirectory: tree.root + "/state")
        _ = try choice.enable(facts)
        #expect(tree.gather("1.18.4", desktop: "GNOME").mailtoRouteWins)

        // With no portals.conf anywhere: the same command, which makes the user's.
        let bare = try PortalTree()
        try bare.gtk()
        try bare.installMailtoRoute()
        let none = bare.gather("1.18.4", desktop: "GNOME")
        #expect(none.config == nil)
        #expect(none.how.contains("deprecated"))
        #expect(none.steps.first?.hasPrefix("run mailto-route portal enable: it sets") == true)
        _ = try EmailPortalChoice(stateDirectory: bare.root + "/state").enable(none)
        #expect(bare.gather("1.18.4", desktop: "GNOME").mailtoRouteWins)
    }
}
