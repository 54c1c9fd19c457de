import Foundation

/// Debian's real LibreOffice (libreoffice-writer), started as a person starts it from a
/// terminal: no app scope, no desktop launcher, a session of its own, with a profile of its
/// own under `directory` and a UNO pipe through which Servers/libreoffice-email-document.py
/// asks it for "Email Document". It runs headless: the test needs its mail command, not its
/// window, and a first start's dialogs would stand in the way of a visible one.
public final class LibreOffice: @unchecked Sendable {
    private let office: DesktopProgram
    private let pipe = "mailto-route-test-\(UUID().uuidString)"
    private let environment: [String: String]

    /// `environment` is LibreOffice's, and so the one senddoc and xdg-email inherit.
    public init(environment: [String: String], directory: URL) throws {
        self.environment = environment
        let profile = directory.appendingPathComponent("libreoffice-profile")
        office = try DesktopProgram(
            ["/usr/lib/libreoffice/program/soffice", "-env:UserInstallation=\(profile.absoluteString)",
             "--headless", "--norestore", "--nologo", "--accept=pipe,name=\(pipe);urp;"],
            environment: environment, directory: directory)
    }

    /// File > Send > Email Document on `document`, opened in this LibreOffice: returns
    /// once LibreOffice has run senddoc.
    public func emailDocument(_ document: String) throws {
        let result = try run("/usr/bin/python3", [
            packageRoot.appendingPathComponent("Tests/TestSupport/Servers/libreoffice-email-document.py").path,
            "--pipe", pipe, "--timeout", "60", document,
        ], environment: environment, timeout: 90)
        guard result.status == 0, result.stdout.contains("sent") else {
            throw TestSupportError("LibreOffice's Email Document failed: \(result) \(office.finish(timeout: 1))")
        }
    }
}
