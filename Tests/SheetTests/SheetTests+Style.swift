import Foundation
import Testing
import TestSupport

extension SheetTests {
    /// Light and dark follow the system's choice (`AdwStyleManager`): with GNOME's
    /// `color-scheme` set to `prefer-dark` (GSettings, which libadwaita reads when no settings
    /// portal answers), the same sheet is drawn dark. Judged by ImageMagick on the two
    /// screenshots: the dark one's mean brightness is well below the light one's.
    @Test func theSheetFollowsTheSystemsLightOrDarkStyle() throws {
        try writeAccount(sandbox, port: 9, security: "none")
        var brightness: [String: Double] = [:]
        for scheme in ["default", "prefer-dark"] {
            let name = scheme == "default" ? "style-light" : "style-dark"
            // GSettings in a key file of the sandbox's, set as GNOME Settings would set it.
            _ = try sandbox.write("[org/gnome/desktop/interface]\ncolor-scheme='\(scheme)'\n",
                                  to: "home/.config/glib-2.0/settings/keyfile")
            var environment = environment
            environment["GSETTINGS_BACKEND"] = "keyfile"
            let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:ann@example.com?subject=Lunch&body=At%20noon%3F", "--json"],
                                             environment: environment, directory: sandbox.root)
            let shot = screenshot(name)
            _ = try desktop.drive(["wait-sheet", shot, "press:Cancel", "wait-gone"])
            #expect(program.finish().status == 4)
            let path = String(shot.dropFirst("shot:".count))
            let mean = try run("/usr/bin/convert", [path, "-colorspace", "Gray", "-format", "%[fx:mean]", "info:"])
            let value = try #require(Double(mean.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(mean)")
            brightness[scheme] = value
        }
        let light = try #require(brightness["default"]), dark = try #require(brightness["prefer-dark"])
        #expect(dark < light * 0.6, "light \(light), dark \(dark)")
    }
}
