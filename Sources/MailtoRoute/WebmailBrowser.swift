import DesktopIntegration

/// The browser a webmail page opens in: `webmail-browser=` (a desktop id) and
/// `webmail-browser-profile=` of `[route]`, or of the group of the account a way opens
/// (`Session.webmailBrowser(for:)`). By default the desktop's web browser (GIO's
/// default for `x-scheme-handler/https`), in the profile it opens by itself. A profile is
/// how a person keeps a work account and a home one apart, each signed in in its own.
public struct WebmailBrowser: Sendable, Equatable {
    /// `webmail-browser=`: the browser's desktop id (`firefox-esr.desktop`); `nil`: the
    /// desktop's web browser.
    public var desktopID: String?
    /// `webmail-browser-profile=`: Firefox's profile name (`-P NAME`), or a Chromium-family
    /// browser's profile directory (`--profile-directory=Profile 1`); `nil`: none named.
    public var profile: String?
    /// The group the keys are in (`[route]`, `[account work]`), as a mistake names it.
    public var group: String

    public init(desktopID: String? = nil, profile: String? = nil, group: String = "[route]") {
        self.desktopID = desktopID
        self.profile = profile
        self.group = group
    }

    /// The two families whose command lines name a profile, each its own way.
    enum Family: Equatable {
        case firefox, chromium

        /// The programs of each family, as `ExecLine.programNames` names them (a Flatpak's
        /// by its app id's last part: `org.mozilla.firefox`, `org.chromium.Chromium`).
        static let programs: [String: Family] = [
            "firefox": .firefox, "firefox-esr": .firefox, "firefox-bin": .firefox, "librewolf": .firefox,
            "waterfox": .firefox, "icecat": .firefox, "floorp": .firefox,
            "chromium": .chromium, "chromium-browser": .chromium, "google-chrome": .chromium,
            "google-chrome-stable": .chromium, "google-chrome-beta": .chromium, "google-chrome-unstable": .chromium,
            "chrome": .chromium, "brave": .chromium, "brave-browser": .chromium, "vivaldi": .chromium,
            "vivaldi-stable": .chromium, "microsoft-edge": .chromium, "microsoft-edge-stable": .chromium,
            "msedge": .chromium, "edge": .chromium,
        ]

        /// The words that open `profile` (Firefox: `-P` and the name, two words, as
        /// `firefox --help` gives it; Chromium: one word, `--profile-directory=DIR`).
        func arguments(profile: String) -> [String] {
            switch self {
            case .firefox: ["-P", profile]
            case .chromium: ["--profile-directory=" + profile]
            }
        }
    }

    /// The browser to open `service` in: the one `webmail-browser=` names, else the
    /// desktop's. Throws a configuration error when that is not there.
    func app(for service: Webmail.Service) throws(DesktopError) -> AppInfo {
        if let desktopID {
            guard let app = AppInfo.named(desktopID) else {
                throw DesktopError(.configuration, tr("webmail-browser=%@ in %@ is not installed", desktopID, group))
            }
            return app
        }
        guard let browser = Handlers.defaultForScheme("https") else {
            throw DesktopError(.configuration, tr("handler=webmail:%@, but there is no default web browser "
                + "(x-scheme-handler/https)", service.rawValue))
        }
        return browser
    }

    /// Opens `url` in `browser`: through GIO, as any link, without a profile; with one, as
    /// the argv its `Exec=` runs with the profile's words and the URL (`argv`).
    func open(_ url: String, in browser: AppInfo) throws {
        guard let profile else {
            try Launcher.launch(browser, uris: [url])
            return
        }
        guard let line = browser.execLine else {
            throw DesktopError(.permanent, tr("cannot read the Exec= line of %@ (%@)", browser.name, browser.id ?? browser.executable))
        }
        let argv = try Self.argv(line, browser: "\(browser.name) (\(browser.id ?? browser.executable))", profile: profile, url: url,
                                 group: group)
        try Launcher.start(.detached(argv), of: browser, terminal: nil, environment: ClickTokenEnvironment.passedOn())
    }

    /// The argv that opens `url` in `profile` of the browser whose `Exec=` is `line`
    /// (`browser` names it in a mistake): its wrappers and program, the family's profile
    /// words, the URL. A profile of a browser of neither family, one that could be read as
    /// an option or spans lines, or an `Exec=` that passes no words on, is a configuration
    /// error: guessed words could open the wrong account, or none.
    static func argv(_ line: ExecLine, browser: String, profile: String, url: String, group: String = "[route]") throws(DesktopError) -> [String] {
        guard !profile.isEmpty, !profile.hasPrefix("-"), !profile.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) else {
            throw DesktopError(.configuration, tr("webmail-browser-profile=%@ in %@ is not a profile name", profile.visible, group))
        }
        guard let family = line.programNames.lazy.compactMap({ Family.programs[$0] }).first else {
            throw DesktopError(.configuration, tr("webmail-browser-profile=%@ in %@: %@ is neither a Firefox nor a Chromium "
                + "browser, and mailto-route knows how to open a profile only in those; set webmail-browser= to one of them, "
                + "or remove the profile", profile.visible, group, browser))
        }
        guard let argv = line.command(arguments: family.arguments(profile: profile) + [url]) else {
            throw DesktopError(.configuration, tr("webmail-browser-profile=%@ in %@: the Exec= line of %@ passes no "
                + "options on to the browser", profile.visible, group, browser))
        }
        return argv
    }
}
