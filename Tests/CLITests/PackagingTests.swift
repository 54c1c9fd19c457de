import Foundation
import Testing
import TestSupport

/// `make install DESTDIR=… PREFIX=/usr` as a Debian package's rules run it, after a build:
/// it builds nothing, installs no packages, and each file it installs passes the tool
/// Debian judges that kind of file with.
@Suite(.serialized) struct PackagingTests {
    let judgeEnvironment = ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]

    /// The lines of the desktop file at `path`, once `desktop-file-validate` has found
    /// nothing to say about it.
    func validatedDesktopEntry(_ path: String) throws -> [String] {
        let validate = try run("/usr/bin/desktop-file-validate", [path], environment: judgeEnvironment)
        #expect(validate.status == 0 && validate.stdout.isEmpty && validate.stderr.isEmpty, "\(validate)")
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }
    static let expectedFiles = [
        "usr/bin/mailto-route",
        "usr/bin/mailto-route-books",
        "usr/bin/mailto-route-desktop",
        "usr/bin/xdg-email-hook.sh",
        "usr/lib/systemd/user/mailto-route-outbox.service",
        "usr/share/applications/io.github.mailto_route.MailtoRoute.desktop",
        "usr/share/applications/mailto-route.desktop",
        "usr/share/bash-completion/completions/mailto-route",
        "usr/share/dbus-1/interfaces/io.github.mailto_route.MailtoRoute1.xml",
        "usr/share/dbus-1/services/io.github.mailto_route.MailtoRoute.service",
        "usr/share/dbus-1/services/org.freedesktop.impl.portal.desktop.mailtoroute.service",
        "usr/share/doc/mailto-route/mailtoroute-portals.conf",
        "usr/share/icons/hicolor/scalable/apps/io.github.mailto_route.MailtoRoute.svg",
        "usr/share/icons/hicolor/symbolic/apps/io.github.mailto_route.MailtoRoute-symbolic.svg",
        "usr/share/locale/de/LC_MESSAGES/mailto-route.mo",
        "usr/share/man/man1/mailto-route-books.1",
        "usr/share/man/man1/mailto-route-desktop.1",
        "usr/share/man/man1/mailto-route.1",
        "usr/share/man/man1/xdg-email-hook.sh.1",
        "usr/share/metainfo/io.github.mailto_route.MailtoRoute.metainfo.xml",
        "usr/share/xdg-desktop-portal/portals/00-mailtoroute.portal",
        "usr/share/xdg-desktop-portal/portals/mailtoroute.portal",
        "usr/share/zsh/vendor-completions/_mailto-route",
    ]

    func make(_ arguments: [String], destination: URL) throws -> RunResult {
        try run("/usr/bin/make", ["-C", packageRoot.path] + arguments + [
            "DESTDIR=\(destination.path)", "PREFIX=/usr", "BUILT=\(mailtoRouteBinary)",
        ], environment: judgeEnvironment, timeout: 120)
    }

    func files(under root: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                files.append(String(url.path.dropFirst(root.path.count + 1)))
            }
        }
        return files.sorted()
    }

    @Test func installBuildsNothingAndInstallsNoPackages() throws {
        let sandbox = try Sandbox()
        let plan = try make(["-n", "install"], destination: sandbox.root.appendingPathComponent("dest"))
        #expect(plan.status == 0, "\(plan)")
        for word in ["swift", "install-deps", "apt", "dpkg", "sudo"] {
            #expect(!plan.stdout.contains(word), "make install would run \(word):\n\(plan.stdout)")
        }
        // Without a build, it says so and installs nothing.
        let unbuilt = try run("/usr/bin/make", ["-C", packageRoot.path, "install", "DESTDIR=\(sandbox.root.path)/none",
                                                "BUILT=\(sandbox.root.path)/not-built"], environment: judgeEnvironment)
        #expect(unbuilt.status != 0)
        #expect(unbuilt.stderr.contains("is not built; run 'make' first"), "\(unbuilt)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("none").path))
    }

    @Test func installedFilesPassDebiansJudgesAndUninstallRemovesThem() throws {
        let sandbox = try Sandbox()
        let destination = sandbox.root.appendingPathComponent("dest")
        let install = try make(["install"], destination: destination)
        #expect(install.status == 0, "\(install)")
        #expect(files(under: destination) == Self.expectedFiles)
        let path = { (file: String) in destination.appendingPathComponent(file).path }

        // The binary runs; the man page is groff's and mandoc's idea of a clean page.
        #expect(try run(path("usr/bin/mailto-route"), ["--version"]).status == 0)
        let groff = try run("/usr/bin/groff", ["-man", "-z", "-ww", "-Tutf8", path("usr/share/man/man1/mailto-route.1")],
                            environment: judgeEnvironment)
        #expect(groff.status == 0 && groff.stderr.isEmpty, "\(groff)")
        let mandoc = try run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", path("usr/share/man/man1/mailto-route.1")],
                             environment: judgeEnvironment)
        #expect(mandoc.status == 0 && mandoc.stdout.isEmpty && mandoc.stderr.isEmpty, "\(mandoc)")

        // The system desktop file: valid, shown (so the settings list it), in Network and
        // Email, for mailto: links, running the installed binary.
        let entry = try validatedDesktopEntry(path("usr/share/applications/mailto-route.desktop"))
        #expect(entry.contains("Categories=Network;Email;"))
        #expect(entry.contains("MimeType=x-scheme-handler/mailto;"))
        #expect(entry.contains("Exec=/usr/bin/mailto-route open %u"))
        // GIO asks for a click's activation token only for an entry that says so.
        #expect(entry.contains("StartupNotify=true"))
        #expect(!entry.contains { $0.hasPrefix("NoDisplay=") })

        // The desktop service: its D-Bus activatable entry, named after the application id
        // (valid, hidden), and the session bus's service files, all running the installed
        // mailto-route-desktop as a service.
        let serviceEntry = try validatedDesktopEntry(path("usr/share/applications/io.github.mailto_route.MailtoRoute.desktop"))
        #expect(serviceEntry.contains("DBusActivatable=true"))
        #expect(serviceEntry.contains("Exec=/usr/bin/mailto-route-desktop --gapplication-service"))
        for (name, busName) in [("io.github.mailto_route.MailtoRoute", "io.github.mailto_route.MailtoRoute"),
                                ("org.freedesktop.impl.portal.desktop.mailtoroute", "org.freedesktop.impl.portal.desktop.mailtoroute")] {
            let file = try String(contentsOfFile: path("usr/share/dbus-1/services/\(name).service"), encoding: .utf8)
            #expect(file == "[D-BUS Service]\nName=\(busName)\nExec=/usr/bin/mailto-route-desktop --gapplication-service\n")
        }

        // AppStream: the metainfo alone, and with the desktop file it launches.
        let metainfo = path("usr/share/metainfo/io.github.mailto_route.MailtoRoute.metainfo.xml")
        let appstream = try run("/usr/bin/appstreamcli", ["validate", "--no-net", metainfo], environment: judgeEnvironment)
        #expect(appstream.status == 0, "\(appstream)")
        let tree = try run("/usr/bin/appstreamcli", ["validate-tree", "--no-net", destination.path], environment: judgeEnvironment)
        #expect(tree.status == 0, "\(tree)")

        // The German catalog is one gettext reads: GNU msgunfmt takes it apart again, with the
        // sheet's Send in it.
        let catalog = try run("/usr/bin/msgunfmt", [path("usr/share/locale/de/LC_MESSAGES/mailto-route.mo")], environment: judgeEnvironment)
        #expect(catalog.status == 0 && catalog.stdout.contains("msgid \"Send\"\nmsgstr \"Senden\""), "\(catalog)")

        // The completions are valid for their shells (CompletionTests runs them).
        #expect(try run("/bin/bash", ["-n", path("usr/share/bash-completion/completions/mailto-route")]).status == 0)
        #expect(try run("/usr/bin/zsh", ["-n", path("usr/share/zsh/vendor-completions/_mailto-route")]).status == 0)

        // The user unit runs the installed binary and orders itself after nothing a user
        // manager lacks.
        let unit = try String(contentsOfFile: path("usr/lib/systemd/user/mailto-route-outbox.service"), encoding: .utf8)
        #expect(unit.contains("\nExecStart=/usr/bin/mailto-route outbox watch\n"))
        #expect(!unit.contains("network-online.target"))

        // xdg-email's hook runs the installed binary, is executable, and reads as sh.
        let hook = path("usr/bin/xdg-email-hook.sh")
        #expect(try String(contentsOfFile: hook, encoding: .utf8).contains("\nexec '/usr/bin/mailto-route' open --xdg-email \"$1\"\n"))
        #expect(FileManager.default.isExecutableFile(atPath: hook))
        #expect(try run("/bin/sh", ["-n", hook]).status == 0)

        let uninstall = try make(["uninstall"], destination: destination)
        #expect(uninstall.status == 0, "\(uninstall)")
        #expect(files(under: destination).isEmpty)
    }

    /// The installed backend descriptions, judged by Debian's real xdg-desktop-portal 1.16
    /// reading the staged directory (`XDG_DESKTOP_PORTAL_DIR`) on a private bus, beside the
    /// GTK backend's gtk.portal as xdg-desktop-portal-gtk installs it: it loads both files
    /// without an error and gives the Email portal to mailto-route's, on GNOME (which
    /// gtk.portal's UseIn names) as on XFCE. The portals.conf example is GLib's idea of a key
    /// file with mailto-route preferred for Email.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: realPortal), "xdg-desktop-portal is not installed"))
    func installedPortalFileIsTheEmailBackendForTheRealPortal() throws {
        let sandbox = try Sandbox()
        let destination = sandbox.root.appendingPathComponent("dest")
        #expect(try make(["install"], destination: destination).status == 0)
        let portals = destination.appendingPathComponent("usr/share/xdg-desktop-portal/portals").path
        try """
            [portal]
            DBusName=org.freedesktop.impl.portal.desktop.gtk
            Interfaces=org.freedesktop.impl.portal.FileChooser;org.freedesktop.impl.portal.AppChooser;org.freedesktop.impl.portal.Print;org.freedesktop.impl.portal.Notification;org.freedesktop.impl.portal.Inhibit;org.freedesktop.impl.portal.Access;org.freedesktop.impl.portal.Account;org.freedesktop.impl.portal.Email;org.freedesktop.impl.portal.DynamicLauncher;org.freedesktop.impl.portal.Lockdown;org.freedesktop.impl.portal.Settings;
            UseIn=gnome

            """.write(toFile: portals + "/gtk.portal", atomically: false, encoding: .utf8)
        for desktop in ["GNOME", "XFCE"] {
            let text = try realPortalStartLog(portals: portals, desktop: desktop)
            #expect(text.contains("loading \(portals)/mailtoroute.portal"), "\(text)")
            #expect(text.contains("loading \(portals)/00-mailtoroute.portal"), "\(text)")
            #expect(!text.contains("Error loading"), "\(text)")
            #expect(text.contains(" 00-mailtoroute.portal for org.freedesktop.impl.portal.Email"), "\(desktop): \(text)")
            #expect(text.contains("providing portal org.freedesktop.portal.Email"), "\(text)")
        }
        try FileManager.default.removeItem(atPath: portals + "/gtk.portal")

        let snippet = destination.appendingPathComponent("usr/share/doc/mailto-route/mailtoroute-portals.conf").path
        let judged = try run("/usr/bin/python3", ["-c", """
            import sys
            from gi.repository import GLib
            key = GLib.KeyFile()
            key.load_from_file(sys.argv[1], GLib.KeyFileFlags.NONE)
            print(key.get_keys("preferred")[0], key.get_string_list("preferred", "org.freedesktop.impl.portal.Email"))
            """, snippet], environment: judgeEnvironment)
        #expect(judged.status == 0, "\(judged)")
        #expect(judged.stdout == "['org.freedesktop.impl.portal.Email'] ['mailtoroute']\n", "\(judged)")
    }

    /// systemd's own check of the installed unit; `verify` wants its ExecStart to exist,
    /// so the staged copy points at the staged binary.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "systemd-analyze is not installed"))
    func installedUserUnitVerifies() throws {
        let sandbox = try Sandbox()
        let destination = sandbox.root.appendingPathComponent("dest")
        #expect(try make(["install"], destination: destination).status == 0)
        let installed = try String(contentsOfFile: destination.appendingPathComponent("usr/lib/systemd/user/mailto-route-outbox.service").path, encoding: .utf8)
        let staged = try sandbox.write(
            installed.replacingOccurrences(of: "/usr/bin/mailto-route", with: destination.path + "/usr/bin/mailto-route"),
            to: "units/mailto-route-outbox.service")
        let result = try run("/usr/bin/systemd-analyze", ["verify", "--user", staged.path], environment: sandbox.environment)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    }
}
