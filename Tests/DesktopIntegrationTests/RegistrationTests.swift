import Foundation
import Testing
import TestSupport

/// `register` and `unregister`, judged by `xdg-mime`, `gio mime` and `desktop-file-validate`.
@Suite struct RegistrationTests {
    /// What xdg-utils says the default `mailto:` handler is.
    func xdgMimeDefault(_ sandbox: Sandbox, _ extra: [String: String] = [:]) throws -> String {
        try judge("/usr/bin/xdg-mime", ["query", "default", "x-scheme-handler/mailto"], in: sandbox, extra)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What GIO's own tool says the default is.
    func gioDefault(_ sandbox: Sandbox, _ extra: [String: String] = [:]) throws -> String {
        let out = try judge("/usr/bin/gio", ["mime", "x-scheme-handler/mailto"], in: sandbox, extra).stdout
        let first = out.split(separator: "\n").first.map(String.init) ?? ""
        guard first.hasPrefix("Default application"), let colon = first.lastIndex(of: ":") else { return "" }
        return first[first.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }

    @Test func registerMakesItTheDefaultForXdgMimeAndGIO() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        #expect(try xdgMimeDefault(sandbox) == "fakebird.desktop")
        let result = try route(["register"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("previous default: fakebird.desktop"))
        #expect(try xdgMimeDefault(sandbox) == "mailto-route.desktop")
        #expect(try gioDefault(sandbox) == "mailto-route.desktop")
    }

    @Test func installedDesktopFileIsValidAndRunsThisBinary() throws {
        let sandbox = try Sandbox()
        #expect(try route(["register"], in: sandbox).status == 0)
        let installed = sandbox.userApplications.appendingPathComponent("mailto-route.desktop")
        let validation = try judge("/usr/bin/desktop-file-validate", [installed.path], in: sandbox)
        #expect(validation.status == 0 && validation.stdout.isEmpty, "\(validation)")
        let binary = URL(fileURLWithPath: mailtoRouteBinary).resolvingSymlinksInPath().path
        let template = try String(contentsOf: packageRoot.appendingPathComponent("data/mailto-route.desktop"), encoding: .utf8)
        #expect(sandbox.contents(installed) == template.replacingOccurrences(of: "@EXEC@", with: binary))
    }

    /// The desktop service's files: the D-Bus activatable entry (valid) and the bus's
    /// service files, as in data/ with mailto-route-desktop's path; unregister removes them.
    @Test func registerInstallsTheDesktopServiceFilesAndUnregisterRemovesThem() throws {
        let sandbox = try Sandbox()
        let register = try route(["register"], in: sandbox)
        #expect(register.status == 0, "\(register)")
        let desktop = URL(fileURLWithPath: mailtoRouteBinary).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("mailto-route-desktop").path
        // The login's autostart entry is the user's configuration (XDG_CONFIG_HOME), the
        // rest data (XDG_DATA_HOME).
        let autostart = sandbox.root.appendingPathComponent("home/.config")
        let files = [
            (sandbox.dataHome, "applications", "io.github.mailto_route.MailtoRoute.desktop"),
            (sandbox.dataHome, "dbus-1/services", "io.github.mailto_route.MailtoRoute.service"),
            (sandbox.dataHome, "dbus-1/services", "org.freedesktop.impl.portal.desktop.mailtoroute.service"),
            (autostart, "autostart", "io.github.mailto_route.MailtoRoute.Outbox.desktop"),
        ]
        for (base, directory, name) in files {
            let installed = base.appendingPathComponent("\(directory)/\(name)")
            let template = try String(contentsOf: packageRoot.appendingPathComponent("data/\(name)"), encoding: .utf8)
            #expect(sandbox.contents(installed) == template.replacingOccurrences(of: "@DESKTOP@", with: desktop), "\(name)")
        }
        for entry in [sandbox.userApplications.appendingPathComponent("io.github.mailto_route.MailtoRoute.desktop"),
                      autostart.appendingPathComponent("autostart/io.github.mailto_route.MailtoRoute.Outbox.desktop")] {
            let validation = try judge("/usr/bin/desktop-file-validate", [entry.path], in: sandbox)
            #expect(validation.status == 0 && validation.stdout.isEmpty, "\(validation)")
        }
        #expect(try route(["unregister"], in: sandbox).status == 0)
        for (base, directory, name) in files {
            #expect(!FileManager.default.fileExists(atPath: base.appendingPathComponent("\(directory)/\(name)").path))
        }
    }

    @Test func registerTwiceChangesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        #expect(try route(["register"], in: sandbox).status == 0)
        let list = sandbox.contents(sandbox.mimeappsList)
        let state = sandbox.contents(sandbox.stateHome.appendingPathComponent("mailto-route/state"))
        let again = try route(["register"], in: sandbox)
        #expect(again.status == 0)
        #expect(again.stdout.contains("already the default"))
        #expect(again.stdout.contains("previous default: fakebird.desktop"))
        #expect(sandbox.contents(sandbox.mimeappsList) == list)
        #expect(sandbox.contents(sandbox.stateHome.appendingPathComponent("mailto-route/state")) == state)
    }

    /// One rule for every file mailto-route keeps: a relative XDG_STATE_HOME is ignored, as
    /// the XDG spec says, for register's state file as for the outbox beside it.
    @Test func aRelativeXDGStateHomeIsIgnoredForTheStateFile() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        let relative = ["XDG_STATE_HOME": "relative/state"]
        let result = try route(["register"], in: sandbox, relative)
        #expect(result.status == 0, "\(result)")
        let state = sandbox.contents(sandbox.stateHome.appendingPathComponent("mailto-route/state"))
        #expect(state?.contains("previous-default=fakebird.desktop") == true, "\(state ?? "no state file")")
        #expect(try route(["unregister"], in: sandbox, relative).stdout.contains("default restored: fakebird.desktop"))
    }

    /// GIO (GLib 2.74) takes a relative XDG_DATA_HOME or XDG_CONFIG_HOME, which mailto-route
    /// ignores: register says so, and writes nothing, rather than install a desktop file GIO
    /// does not see.
    @Test(arguments: ["XDG_DATA_HOME", "XDG_CONFIG_HOME"])
    func registerRefusesARelativeDirectoryThatGIOWouldTake(variable: String) throws {
        let sandbox = try Sandbox()
        let result = try route(["register"], in: sandbox, [variable: "relative/dir"])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("\(variable)=relative/dir is not a full path"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.userApplications.appendingPathComponent("mailto-route.desktop").path))
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateHome.appendingPathComponent("mailto-route/state").path))
    }

    @Test func unregisterRestoresThePreviousDefaultAndTheFileByteForByte() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let original = """
            # kept by hand
            [Default Applications]
            text/html = firefox.desktop
            x-scheme-handler/mailto=fakebird.desktop

            [Added Associations]
            image/png=eog.desktop;
            # trailing comment

            """
        try sandbox.write(original, to: "home/.config/mimeapps.list")
        #expect(try route(["register"], in: sandbox).status == 0)
        #expect(try xdgMimeDefault(sandbox) == "mailto-route.desktop")
        let result = try route(["unregister"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("default restored: fakebird.desktop"))
        #expect(sandbox.contents(sandbox.mimeappsList) == original)
        #expect(try xdgMimeDefault(sandbox) == "fakebird.desktop")
        #expect(try gioDefault(sandbox) == "fakebird.desktop")
        #expect(!FileManager.default.fileExists(atPath: sandbox.userApplications.appendingPathComponent("mailto-route.desktop").path))
    }

    @Test func unregisterWithNoPreviousDefaultLeavesNone() throws {
        let sandbox = try Sandbox()
        #expect(try route(["register"], in: sandbox).status == 0)
        let result = try route(["unregister"], in: sandbox)
        #expect(result.stdout.contains("default restored: none"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.mimeappsList.path))
        #expect(try gioDefault(sandbox) == "")
    }

    @Test func unregisterAfterOtherChangesTouchesOnlyTheMailtoLines() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        #expect(try route(["register"], in: sandbox).status == 0)
        // Another program edits the list after register.
        var list = sandbox.contents(sandbox.mimeappsList) ?? ""
        list += "\n[Removed Associations]\ntext/plain = gedit.desktop;\n"
        try sandbox.write(list, to: "home/.config/mimeapps.list")
        #expect(try route(["unregister"], in: sandbox).status == 0)
        let after = sandbox.contents(sandbox.mimeappsList) ?? ""
        #expect(after.contains("\n[Removed Associations]\ntext/plain = gedit.desktop;\n"))
        #expect(!after.contains("mailto-route"))
        #expect(try xdgMimeDefault(sandbox) == "fakebird.desktop")
    }

    @Test func unregisterWithoutRegisterChangesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        let before = sandbox.contents(sandbox.mimeappsList)
        let result = try route(["unregister"], in: sandbox)
        #expect(result.status == 0)
        #expect(result.stdout.contains("was not registered"))
        #expect(sandbox.contents(sandbox.mimeappsList) == before)
    }

    @Test func registerWarnsWhenADesktopSpecificListOverridesIt() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.write("[Default Applications]\nx-scheme-handler/mailto=fakebird.desktop\n",
                          to: "home/.config/kde-mimeapps.list")
        let desktop = ["XDG_CURRENT_DESKTOP": "KDE"]
        let result = try route(["register"], in: sandbox, desktop)
        #expect(result.status == 0)
        #expect(result.stderr.contains("kde-mimeapps.list names fakebird.desktop"), "\(result)")
        #expect(try gioDefault(sandbox, desktop) == "fakebird.desktop")
        // Without that desktop the same files make mailto-route the default, and no warning.
        #expect(try gioDefault(sandbox) == "mailto-route.desktop")
        #expect(try route(["register"], in: sandbox).stderr.isEmpty)
    }

    /// `register --force` puts mailto-route first in the user's desktop-specific list;
    /// `unregister` gives that list back byte for byte.
    @Test func registerForceTakesOverADesktopSpecificListAndUnregisterGivesItBack() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let original = "# mine\n[Default Applications]\nx-scheme-handler/mailto=fakebird.desktop;other.desktop\ntext/html=firefox.desktop\n"
        let kdeList = try sandbox.write(original, to: "home/.config/kde-mimeapps.list")
        let desktop = ["XDG_CURRENT_DESKTOP": "KDE"]
        #expect(try route(["register"], in: sandbox, desktop).status == 0)
        #expect(try gioDefault(sandbox, desktop) == "fakebird.desktop")
        let forced = try route(["register", "--force"], in: sandbox, desktop)
        #expect(forced.status == 0, "\(forced)")
        #expect(forced.stdout.contains("\(kdeList.path) now names mailto-route first"), "\(forced)")
        #expect(forced.stderr.isEmpty, "\(forced)")
        #expect(try gioDefault(sandbox, desktop) == "mailto-route.desktop")
        #expect(try xdgMimeDefault(sandbox, desktop) == "mailto-route.desktop")
        #expect(sandbox.contents(kdeList) == original.replacingOccurrences(
            of: "mailto=fakebird.desktop;other.desktop", with: "mailto=mailto-route.desktop;fakebird.desktop;other.desktop"))
        // Again: nothing more changes.
        #expect(try route(["register", "--force"], in: sandbox, desktop).status == 0)
        let result = try route(["unregister"], in: sandbox, desktop)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.contents(kdeList) == original)
        #expect(try gioDefault(sandbox, desktop) == "fakebird.desktop")
    }

    /// A list the user changed between two `register --force` runs is given back as the
    /// user last left it; a list kept behind a symbolic link stays one.
    @Test(arguments: [false, true])
    func unregisterGivesBackTheListAsTheUserLastLeftIt(throughALink: Bool) throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        let first = "[Default Applications]\nx-scheme-handler/mailto=fakebird.desktop\n"
        let link = sandbox.configHome.appendingPathComponent("kde-mimeapps.list")
        let target = try sandbox.write(first, to: throughALink ? "home/dotfiles/kde-mimeapps.list" : "home/.config/kde-mimeapps.list")
        if throughALink { try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path) }
        let desktop = ["XDG_CURRENT_DESKTOP": "KDE"]
        #expect(try route(["register", "--force"], in: sandbox, desktop).status == 0)
        // The user adds a line and gives mailto: back to Fake Bird; then forces again.
        let changed = first + "text/html=firefox.desktop\n"
        try changed.write(to: target, atomically: false, encoding: .utf8)
        #expect(try route(["register", "--force"], in: sandbox, desktop).status == 0)
        #expect(try gioDefault(sandbox, desktop) == "mailto-route.desktop")
        #expect(try route(["unregister"], in: sandbox, desktop).status == 0)
        #expect(sandbox.contents(target) == changed)
        if throughALink {
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == target.path)
        }
        #expect(try gioDefault(sandbox, desktop) == "fakebird.desktop")
    }

    @Test func linkOpenedThroughGIORunsTheRegisteredBinaryWhichHandsOffToThePreviousDefault() throws {
        let sandbox = try Sandbox()
        try sandbox.installHandler("fakebird.desktop", name: "Fake Bird", program: "fakebird")
        try sandbox.setDefaultMailHandler("fakebird.desktop")
        // A path that needs the Exec= key's quoting: a space, a quote, a dollar. (Not a
        // percent: GIO looks for the program before undoing the spec's "%%".)
        let binary = try sandbox.write(try Data(contentsOf: URL(fileURLWithPath: mailtoRouteBinary)),
                                       to: "my apps/it's $HOME/mailto-route", mode: 0o755).path
        let registered = try run(binary, ["register"], environment: sandbox.environment(), timeout: 30)
        #expect(registered.status == 0, "\(registered)")
        let installed = sandbox.userApplications.appendingPathComponent("mailto-route.desktop")
        #expect(try judge("/usr/bin/desktop-file-validate", [installed.path], in: sandbox).status == 0)
        let opened = try judge("/usr/bin/gio", ["open", "mailto:a@example.org?subject=via%20gio"], in: sandbox)
        #expect(opened.status == 0, "\(opened)")
        #expect(sandbox.recordedArgv("fakebird", timeout: 10) == ["mailto:a@example.org?subject=via%20gio"])
    }
}
