import Foundation
import Check
import Testing

/// The browsers' own `mailto:` settings as `check` reads them, in-process: the files as
/// Firefox and Chromium write them, read from text and from a home directory of the test's
/// own (never the user's).
@Suite struct BrowserSettingsTests {
    /// A `handlers.json` as Firefox writes it after "Use Gmail" was chosen for mailto.
    static let firefoxGmail = """
        {"defaultHandlersVersion":{"en-US":4},"mimeTypes":{"application/pdf":{"action":3,"extensions":["pdf"]}},\
        "schemes":{"mailto":{"action":2,"handlers":[{"name":"Gmail","uriTemplate":"https://mail.google.com/mail/?extsrc=mailto&url=%s"}]},\
        "irc":{"stubEntry":true,"handlers":[null,{"name":"Mibbit","uriTemplate":"https://www.mibbit.com/?url=%s"}]}},\
        "isDownloadsImprovementsAlreadyMigrated":true}
        """
    /// A new profile's: Firefox offers Gmail for mailto, and nothing is chosen.
    static let firefoxFresh = """
        {"defaultHandlersVersion":{"en-US":4},"mimeTypes":{},\
        "schemes":{"mailto":{"stubEntry":true,"handlers":[null,{"name":"Gmail","uriTemplate":"https://mail.google.com/mail/?extsrc=mailto&url=%s"}]}}}
        """
    /// "Use Thunderbird (default)" chosen again after Gmail: the system's default, Gmail kept as a choice.
    static let firefoxSystem = """
        {"schemes":{"mailto":{"action":4,"handlers":[null,{"name":"Gmail","uriTemplate":"https://mail.google.com/mail/?extsrc=mailto&url=%s"}]}}}
        """
    /// Chromium's Preferences after Outlook on the web was allowed to open email links:
    /// fractions, exponents and 64-bit numbers elsewhere, as Chromium writes them.
    static let chromiumOutlook = """
        {"browser":{"window_placement":{"bottom":1050,"left":10}},"partition":{"per_host_zoom_levels":{"x":{"example.org":{"zoom_level":1.5}}}},\
        "profile":{"content_settings":{"exceptions":{"site_engagement":{"https://outlook.office.com:443,*":{"setting":{"rawScore":4.2e1}}}}}},\
        "custom_handlers":{"ignored_protocol_handlers":[{"protocol":"mailto","url":"https://mail.example.net/?to=%s"}],\
        "registered_protocol_handlers":[{"last_modified":"13351234567890123","protocol":"webcal","url":"https://calendar.example.com/?cal=%s","default":true},\
        {"default":true,"last_modified":"13351234567890123","protocol":"mailto","url":"https://outlook.office.com/mail/deeplink/compose?mailtouri=%s"}]},\
        "big":18446744073709551616}
        """

    @Test func firefoxWithAWebmailHandlerKeepsMailtoForThatSite() {
        #expect(BrowserSettings.firefoxRoute(handlersJSON: Array(Self.firefoxGmail.utf8))
            == .website(name: "Gmail", url: "https://mail.google.com/mail/?extsrc=mailto&url=%s"))
    }

    @Test func firefoxsOwnOfferedHandlersAndTheSystemDefaultHandMailtoToTheDesktop() {
        #expect(BrowserSettings.firefoxRoute(handlersJSON: Array(Self.firefoxFresh.utf8)) == .desktop)
        #expect(BrowserSettings.firefoxRoute(handlersJSON: Array(Self.firefoxSystem.utf8)) == .desktop)
        #expect(BrowserSettings.firefoxRoute(handlersJSON: Array(#"{"schemes":{"irc":{"action":4}}}"#.utf8)) == .desktop)
    }

    @Test func firefoxAlwaysAskAProgramAndAnUnknownActionAreToldApart() {
        let ask = #"{"schemes":{"mailto":{"action":2,"ask":true,"handlers":[null,{"name":"Gmail","uriTemplate":"https://g/%s"}]}}}"#
        #expect(BrowserSettings.firefoxRoute(handlersJSON: Array(ask.utf8)) == .asks)
        let program = #"{"schemes":{"mailto":{"action":2,"handlers":[{"name":"Claws Mail","path":"/usr/bin/claws-mail"}]}}}"#
        #expect(BrowserSettings.firefoxRoute(handlersJSON: Array(program.utf8)) == .program(name: "Claws Mail", path: "/usr/bin/claws-mail"))
        #expect(BrowserSettings.firefoxRoute(handlersJSON: Array(#"{"schemes":{"mailto":{"action":3}}}"#.utf8)) == .unknown("action 3"))
    }

    @Test func aCorruptSettingsFileIsUnreadableNotADesktopRoute() {
        #expect(BrowserSettings.firefoxRoute(handlersJSON: Array(#"{"schemes":{"mailto":{"action":2,"#.utf8)) == .unreadable("not JSON"))
        #expect(BrowserSettings.chromiumRoute(preferences: Array("\u{0}\u{1}PK".utf8)) == .unreadable("not JSON"))
        #expect(BrowserSettings.chromiumRoute(preferences: Array("[]".utf8)) == .unreadable("not JSON"))
    }

    @Test func chromiumsDefaultMailtoHandlerKeepsMailtoForThatSite() {
        #expect(BrowserSettings.chromiumRoute(preferences: Array(Self.chromiumOutlook.utf8))
            == .website(name: "outlook.office.com", url: "https://outlook.office.com/mail/deeplink/compose?mailtouri=%s"))
    }

    @Test func chromiumHandsMailtoToTheDesktopWithoutADefaultOrWithHandlersTurnedOff() {
        let notDefault = #"{"custom_handlers":{"registered_protocol_handlers":[{"protocol":"mailto","url":"https://m.example/?%s"}]}}"#
        #expect(BrowserSettings.chromiumRoute(preferences: Array(notDefault.utf8)) == .desktop)
        let off = Self.chromiumOutlook.replacingOccurrences(of: #""custom_handlers":{"#, with: #""custom_handlers":{"enabled":false,"#)
        #expect(BrowserSettings.chromiumRoute(preferences: Array(off.utf8)) == .desktop)
        #expect(BrowserSettings.chromiumRoute(preferences: Array("{}".utf8)) == .desktop)
    }

    @Test func everyProfileUnderAHomeIsFoundInOrderWithItsRoute() throws {
        let home = try TemporaryHome()
        try home.write("""
            [Install4F96D1932A9F858E]
            Default=abcd.default-release

            [Profile1]
            Name=work
            IsRelative=0
            Path=\(home.path)/elsewhere/work

            [Profile0]
            Name=default-release
            IsRelative=1
            Path=abcd.default-release
            Default=1

            [General]
            StartWithLastProfile=1
            Version=2
            """, to: ".mozilla/firefox/profiles.ini")
        try home.write(Self.firefoxGmail, to: ".mozilla/firefox/abcd.default-release/handlers.json")
        try home.write(Self.firefoxSystem, to: "elsewhere/work/handlers.json")
        try home.write("[Profile0]\nName=flat\nIsRelative=1\nPath=flat.default\n", to: ".var/app/org.mozilla.firefox/.mozilla/firefox/profiles.ini")
        // A Flatpak profile that never stored a choice: no handlers.json.
        try FileManager.default.createDirectory(atPath: home.path + "/.var/app/org.mozilla.firefox/.mozilla/firefox/flat.default",
                                                withIntermediateDirectories: true)
        for name in ["Profile 10", "Profile 2", "Default"] {
            try home.write(#"{"custom_handlers":{"enabled":true}}"#, to: ".config/google-chrome/\(name)/Preferences")
        }
        try home.write(Self.chromiumOutlook, to: ".config/BraveSoftware/Brave-Browser/Default/Preferences")
        try home.write("{", to: ".config/BraveSoftware/Brave-Browser/System Profile/Preferences")
        try home.write("{\"custom_handlers\":", to: ".config/microsoft-edge/Default/Preferences")

        let found = BrowserSettings.gather(home: home.path, configHome: home.path + "/.config")
        #expect(found.map { "\($0.browser)/\($0.profile)" } == [
            "Firefox/work", "Firefox/default-release", "Firefox (Flatpak)/flat",
            "Google Chrome/Default", "Google Chrome/Profile 2", "Google Chrome/Profile 10", "Brave/Default", "Microsoft Edge/Default",
        ])
        #expect(found.map(\.route) == [
            .desktop, .website(name: "Gmail", url: "https://mail.google.com/mail/?extsrc=mailto&url=%s"), .desktop,
            .desktop, .desktop, .desktop,
            .website(name: "outlook.office.com", url: "https://outlook.office.com/mail/deeplink/compose?mailtouri=%s"),
            .unreadable("not JSON"),
        ])
        #expect(found[1].file == home.path + "/.mozilla/firefox/abcd.default-release/handlers.json")
        #expect(found[0].family == .firefox && found[6].family == .chromium)
    }

    @Test func noBrowserProfileFindsNothing() throws {
        let home = try TemporaryHome()
        #expect(BrowserSettings.gather(home: home.path, configHome: home.path + "/.config").isEmpty)
    }

    @Test func aProfilesIniThatDoesNotParseIsOneUnreadableLine() throws {
        let home = try TemporaryHome()
        try home.write("this is not a key file\n", to: ".mozilla/firefox/profiles.ini")
        let found = BrowserSettings.gather(home: home.path, configHome: home.path + "/.config")
        #expect(found.count == 1)
        #expect(found.first?.file == home.path + "/.mozilla/firefox/profiles.ini")
        guard case .unreadable(let reason)? = found.first?.route else {
            Issue.record("\(found)")
            return
        }
        #expect(reason.contains("profiles.ini"), "\(reason)")
    }
}

/// A directory standing in for a home directory, removed when released.
private final class TemporaryHome {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("browser-home-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func write(_ text: String, to relative: String) throws {
        let url = URL(fileURLWithPath: path + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: false, encoding: .utf8)
    }
}
