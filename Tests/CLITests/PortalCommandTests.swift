import Check
import Foundation
import MailtoRoute
import Testing
import TestSupport

/// `mailto-route portal` and `unregister` end to end: the built binary in a sandbox. The
/// machine's own xdg-desktop-portal is Debian's 1.16, which reads no portals.conf; the
/// 1.17-and-later side is set up in-process on the sandbox's files, with the version given
/// as `--version` prints it (as CheckTests do), and taken back by the binary.
@Suite struct PortalCommandTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: realPortal), "xdg-desktop-portal is not installed"))
    func enableOnTheInstalled116SaysWhyAndChangesNothing() throws {
        let sandbox = try Sandbox()
        let result = try route(["portal", "enable"], in: sandbox, ["XDG_CURRENT_DESKTOP": "GNOME"])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.hasPrefix("mailto-route: xdg-desktop-portal 1.16.0 reads no portals.conf"), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.configHome.appendingPathComponent("xdg-desktop-portal").path))
        let status = try route(["portal"], in: sandbox, ["XDG_CURRENT_DESKTOP": "GNOME"])
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.hasPrefix("xdg-desktop-portal 1.16.0 gives the Email portal to "), "\(status)")
        #expect(status.stdout.hasSuffix("mailto-route portal enable has set nothing\n"), "\(status)")
    }

    @Test func unregisterAndPortalDisableTakeBackWhatEnableSet() throws {
        let sandbox = try Sandbox()
        let shipped = try String(contentsOf: packageRoot.appendingPathComponent("data/mailtoroute.portal"), encoding: .utf8)
        try sandbox.write(shipped, to: "usr/share/xdg-desktop-portal/portals/mailtoroute.portal")
        try sandbox.write("[portal]\nDBusName=org.freedesktop.impl.portal.desktop.gtk\nInterfaces=org.freedesktop.impl.portal.Email;\n",
                          to: "usr/share/xdg-desktop-portal/portals/gtk.portal")
        let mine = "# my choices\n[preferred]\ndefault = gtk\n\norg.freedesktop.impl.portal.Email=gtk  \n"
        let file = try sandbox.write(mine, to: "home/.config/xdg-desktop-portal/gnome-portals.conf")
        func facts() -> CheckReport.EmailBackend {
            EmailBackends.gather(
                executable: sandbox.root.appendingPathComponent("usr/libexec/xdg-desktop-portal").path,
                versionOutput: "xdg-desktop-portal 1.18.4\n",
                environment: PortalEnvironment(portalDirectory: nil, currentDesktop: "GNOME", configHome: sandbox.configHome.path,
                                               configDirs: [sandbox.systemConfigDir.path], dataHome: sandbox.dataHome.path,
                                               dataDirs: [sandbox.systemDataDir.path]))
        }
        let choice = EmailPortalChoice(stateDirectory: sandbox.stateHome.appendingPathComponent("mailto-route").path)
        let original = try Data(contentsOf: file)

        #expect(try choice.enable(facts()) == .set(file: file.path, copiedFrom: nil, created: false))
        #expect(facts().mailtoRouteWins)
        let unregistered = try route(["unregister"], in: sandbox)
        #expect(unregistered.status == 0, "\(unregistered)")
        #expect(unregistered.stdout.hasPrefix("\(file.path) is again as it was before mailto-route portal enable.\n"), "\(unregistered)")
        #expect(try Data(contentsOf: file) == original)

        _ = try choice.enable(facts())
        let disabled = try route(["portal", "disable"], in: sandbox)
        #expect(disabled.status == 0, "\(disabled)")
        #expect(try Data(contentsOf: file) == original)
        let again = try route(["portal", "disable"], in: sandbox)
        #expect(again.stdout == "mailto-route portal enable has set nothing; nothing changed.\n", "\(again)")
    }

    @Test func anUnknownActionIsAUsageError() throws {
        let result = try route(["portal", "frobnicate"], in: try Sandbox())
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("mailto-route: unknown portal action 'frobnicate'"), "\(result)")
    }
}
