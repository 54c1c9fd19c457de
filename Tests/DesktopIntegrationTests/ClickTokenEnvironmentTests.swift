import DesktopIntegration
import Testing

/// The click's token as a launcher leaves it in the environment, read from an environment
/// block as `/proc/self/environ` holds it (what `exec` gave the process, before libgtk-4's
/// constructor unset DESKTOP_STARTUP_ID).
@Suite struct ClickTokenEnvironmentTests {
    func block(_ entries: [String]) -> [UInt8] {
        entries.flatMap { Array($0.utf8) + [0] }
    }

    @Test func waylandsTokenComesBeforeTheStartupID() {
        let both = block(["HOME=/h", "DESKTOP_STARTUP_ID=x11-id_TIME42", "XDG_ACTIVATION_TOKEN=wayland-token"])
        #expect(ClickTokenEnvironment.token(inBlock: both) == "wayland-token")
    }

    @Test func theStartupIDAloneIsTheToken() {
        let startup = block(["PATH=/usr/bin", "DESKTOP_STARTUP_ID=gio-launch-7_TIME42", "LANG=C"])
        #expect(ClickTokenEnvironment.token(inBlock: startup) == "gio-launch-7_TIME42")
    }

    @Test func anEmptyValueIsNoToken() {
        #expect(ClickTokenEnvironment.token(inBlock: block(["XDG_ACTIVATION_TOKEN=", "DESKTOP_STARTUP_ID=id-1"])) == "id-1")
        #expect(ClickTokenEnvironment.token(inBlock: block(["XDG_ACTIVATION_TOKEN=", "HOME=/h"])) == nil)
        #expect(ClickTokenEnvironment.token(inBlock: []) == nil)
    }

    @Test func theFirstOfANameIsTheOneGetenvFinds() {
        let twice = block(["DESKTOP_STARTUP_ID=first", "DESKTOP_STARTUP_ID=second"])
        #expect(ClickTokenEnvironment.token(inBlock: twice) == "first")
    }

    @Test func aValueKeepsItsEqualsSigns() {
        #expect(ClickTokenEnvironment.token(inBlock: block(["XDG_ACTIVATION_TOKEN=a=b="])) == "a=b=")
    }

    /// What a mail program a click starts gets: a launcher that set one name (GLib 2.74 the
    /// startup id, xdg-desktop-portal 1.16 the Wayland token) has its token under both.
    @Test func aTokenUnderOneNameIsPassedOnUnderBoth() {
        #expect(ClickTokenEnvironment.passedOn { ["DESKTOP_STARTUP_ID": "gio-7_TIME42"][$0] }
            == ["XDG_ACTIVATION_TOKEN": "gio-7_TIME42", "DESKTOP_STARTUP_ID": "gio-7_TIME42"])
        #expect(ClickTokenEnvironment.passedOn { ["XDG_ACTIVATION_TOKEN": "portal-1", "DESKTOP_STARTUP_ID": ""][$0] }
            == ["XDG_ACTIVATION_TOKEN": "portal-1", "DESKTOP_STARTUP_ID": "portal-1"])
    }

    @Test func twoTokensArePassedOnAsTheyAre() {
        let both = ["XDG_ACTIVATION_TOKEN": "wayland-1", "DESKTOP_STARTUP_ID": "x11-1_TIME42"]
        #expect(ClickTokenEnvironment.passedOn { both[$0] } == both)
        #expect(ClickTokenEnvironment.passedOn { ["HOME": "/h"][$0] }.isEmpty)
    }
}

/// The click's token in the platform data of an org.freedesktop.Application call: GLib 2.76
/// and later launchers send `activation-token` beside `desktop-startup-id`, GTK 4.8 reads the
/// older key only.
@Suite struct ClickTokenPlatformDataTests {
    @Test func theActivationTokenComesBeforeTheStartupID() {
        let both = ["desktop-startup-id": "gio-7_TIME42", "activation-token": "wayland-token"]
        #expect(ClickTokenPlatformData.token { both[$0] } == "wayland-token")
    }

    @Test func anActivationTokenAloneIsTheToken() {
        #expect(ClickTokenPlatformData.token { ["activation-token": "kwin-1"][$0] } == "kwin-1")
    }

    @Test func glib274sStartupIDAloneIsTheToken() {
        #expect(ClickTokenPlatformData.token { ["desktop-startup-id": "gio-7_TIME42"][$0] } == "gio-7_TIME42")
    }

    @Test func anEmptyValueIsNoToken() {
        #expect(ClickTokenPlatformData.token { ["activation-token": "", "desktop-startup-id": "id-1"][$0] } == "id-1")
        #expect(ClickTokenPlatformData.token { ["activation-token": ""][$0] } == nil)
        #expect(ClickTokenPlatformData.token { _ in nil } == nil)
    }
}
