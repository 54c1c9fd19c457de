import DesktopIntegration
import MailtoRoute

/// `mailto-route webmail import`: a webmail handler a browser keeps for itself (a Firefox
/// profile whose `handlers.json` sends `mailto:` to a web site, a Chromium-family profile
/// with a registered `mailto` handler: `BrowserSettings`) made mailto-route's webmail way:
/// `handler=` for that site, opened in that browser and profile. A link such a browser
/// keeps never reaches mailto-route; once imported, every program's links go there alike.
public struct WebmailImport: Sendable {
    /// The profile it comes from.
    public var profile: BrowserProfile
    /// What `handler=` becomes (`Webmail.handler(registered:)`), with the browser and
    /// profile it opens in; or why this profile's site cannot be imported.
    public var way: Result<(handler: String, browser: WebmailBrowser), DesktopError>

    /// Each profile of `profiles` whose `mailto:` links go to a web site, as a way, in
    /// their order.
    public static func ways(from profiles: [BrowserProfile]) -> [WebmailImport] {
        profiles.compactMap { profile in
            guard case .website(_, let url) = profile.route else { return nil }
            return WebmailImport(profile: profile, way: Result { () throws(DesktopError) in
                let handler = try Webmail.handler(registered: url)
                guard let id = desktopIDs(of: profile.browser).first(where: { AppInfo.named($0) != nil }) else {
                    throw DesktopError(.configuration, tr("%@ keeps mailto: links in profile %@, but its desktop file (%@) is not installed",
                                                          profile.browser, profile.profile,
                                                          desktopIDs(of: profile.browser).joined(separator: ", ")))
                }
                return (handler, WebmailBrowser(desktopID: id, profile: profile.profile))
            })
        }
    }

    /// The desktop ids a browser's packages install, as `BrowserSettings` names the
    /// browser (`Firefox (Flatpak)`), the most usual first.
    static func desktopIDs(of browser: String) -> [String] {
        switch browser {
        case "Firefox": ["firefox.desktop", "firefox-esr.desktop"]
        case "Firefox (Flatpak)": ["org.mozilla.firefox.desktop"]
        case "Firefox (snap)": ["firefox_firefox.desktop"]
        case "Chromium": ["chromium.desktop", "chromium-browser.desktop"]
        case "Chromium (Flatpak)": ["org.chromium.Chromium.desktop"]
        case "Chromium (snap)": ["chromium_chromium.desktop"]
        case "Google Chrome": ["google-chrome.desktop"]
        case "Google Chrome Beta": ["google-chrome-beta.desktop"]
        case "Google Chrome Dev": ["google-chrome-unstable.desktop"]
        case "Brave": ["brave-browser.desktop"]
        case "Vivaldi": ["vivaldi-stable.desktop"]
        case "Microsoft Edge": ["microsoft-edge.desktop"]
        default: []
        }
    }
}
