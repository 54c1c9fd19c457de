import DesktopIntegration
import MailtoRoute
import Outbox

/// Where a browser profile sends a clicked `mailto:` link, read from the browser's own
/// settings file: to the desktop's handler (mailto-route when it is the default), or kept in
/// the browser. A browser that keeps them never lets the click reach any `mailto:` handler,
/// so no handler can say why; `check` can.
public struct BrowserProfile: Sendable, Equatable {
    public enum Route: Sendable, Equatable {
        /// The desktop's default `mailto:` handler (GIO, the portal, `xdg-email`).
        case desktop
        /// A web site opens them in the browser: `name` as the browser shows it, and the
        /// address with `%s` where the link goes.
        case website(name: String, url: String)
        /// Firefox starts a program of its own choosing, not the desktop's default.
        case program(name: String, path: String)
        /// Firefox asks at each click which program or site to use.
        case asks
        /// A setting this check does not know (its raw value).
        case unknown(String)
        /// The settings file cannot be read or is not JSON (why).
        case unreadable(String)
    }

    public enum Family: String, Sendable {
        case firefox, chromium
    }

    /// The browser as a person knows it (`Firefox`, `Google Chrome`, `Brave`, …), with
    /// how it is installed where that is not the plain package (`Firefox (Flatpak)`).
    public var browser: String
    public var family: Family
    /// The profile's name (Firefox's `Name=`, Chromium's directory: `Default`, `Profile 1`).
    public var profile: String
    /// The file read: `handlers.json` or `Preferences`.
    public var file: String
    public var route: Route

    public init(browser: String, family: Family, profile: String, file: String, route: Route) {
        self.browser = browser
        self.family = family
        self.profile = profile
        self.file = file
        self.route = route
    }
}

/// Reads the browsers' `mailto:` settings from their profiles under a home directory.
public enum BrowserSettings {
    // MARK: - Firefox

    /// Where Firefox keeps `profiles.ini`: the package's (Firefox ESR too), the Flatpak's,
    /// the snap's, and `$XDG_CONFIG_HOME/mozilla/firefox` (Firefox 147 and later follow the
    /// XDG base directories for a new installation).
    static func firefoxRoots(home: String, configHome: String) -> [(browser: String, directory: String)] {
        [("Firefox", home + "/.mozilla/firefox"),
         ("Firefox", configHome + "/mozilla/firefox"),
         ("Firefox (Flatpak)", home + "/.var/app/org.mozilla.firefox/.mozilla/firefox"),
         ("Firefox (Flatpak)", home + "/.var/app/org.mozilla.firefox/config/mozilla/firefox"),
         ("Firefox (snap)", home + "/snap/firefox/common/.mozilla/firefox")]
    }

    /// The profiles `profiles.ini` in `directory` lists, each with its directory: a
    /// `[ProfileN]` group's `Name=` and `Path=`, relative to `directory` when
    /// `IsRelative=1`. `nil` when there is no `profiles.ini`.
    static func firefoxProfiles(in directory: String) -> Result<[(name: String, directory: String)], BrowserReadError>? {
        let path = directory + "/profiles.ini"
        let file: KeyFile
        do {
            guard let loaded = try KeyFile.load(path) else { return nil }
            file = loaded
        } catch {
            return .failure(BrowserReadError(path: path, reason: error.message))
        }
        var profiles: [(String, String)] = []
        for group in file.groups where group.hasPrefix("Profile") {
            guard let profilePath = file.string(group, "Path") else { continue }
            let relative = file.string(group, "IsRelative") != "0"
            profiles.append((file.string(group, "Name") ?? profilePath, relative ? directory + "/" + profilePath : profilePath))
        }
        return .success(profiles)
    }

    /// Where a Firefox profile sends `mailto:`, from its `handlers.json` (`nil`: the file
    /// does not exist, and Firefox asks the desktop).
    ///
    /// The format, as `HandlerService.sys.mjs` (uriloader/exthandler) reads and writes it:
    /// `schemes.mailto` has `action`, an `nsIHandlerInfo` action (netwerk/mime/nsIMIMEInfo.idl:
    /// 0 saveToDisk, 1 alwaysAsk, 2 useHelperApp, 3 handleInternally, 4 useSystemDefault;
    /// `store` writes only 0, 2, 3 and 4 for a scheme, so Always Ask is 2 with `ask`), `ask:
    /// true` (alwaysAskBeforeHandling: a dialog at each click), and `handlers`, whose first
    /// element is the preferred handler or `null` for none; a handler with `uriTemplate` is
    /// a web site, one with `path` or `command` a program. An entry with `stubEntry: true`
    /// was made by Firefox itself to offer its default web handlers (Gmail, …): nothing was
    /// chosen, and Firefox takes the desktop's default. Without `schemes.mailto` Firefox
    /// also asks the desktop.
    public static func firefoxRoute(handlersJSON bytes: [UInt8]) -> BrowserProfile.Route {
        guard let document = JSONReader.parse(bytes), case .object = document else { return .unreadable(tr("not JSON")) }
        guard let mailto = document["schemes"]?["mailto"], case .object = mailto else { return .desktop }
        if mailto["stubEntry"]?.boolValue == true { return .desktop }
        if mailto["ask"]?.boolValue == true { return .asks }
        let preferred = mailto["handlers"]?.arrayValue?.first
        switch mailto["action"]?.intValue {
        case 4?:
            return .desktop
        case 2?, nil:
            guard let preferred, case .object = preferred else { return .asks }
            let name = preferred["name"]?.stringValue ?? "?"
            if let url = preferred["uriTemplate"]?.stringValue { return .website(name: name, url: url) }
            if let path = preferred["path"]?.stringValue ?? preferred["command"]?.stringValue {
                return .program(name: name, path: path)
            }
            return .unknown("handlers[0]: " + preferred.serialized)
        case 1?:
            return .asks
        case let action?:
            return .unknown("action \(action)")
        }
    }

    // MARK: - Chromium and its family

    /// The Chromium family's user data directories on Linux (`chrome::GetDefaultUserDataDirectory`:
    /// `$XDG_CONFIG_HOME/<name>`), and Chromium's Flatpak and snap.
    static func chromiumRoots(home: String, configHome: String) -> [(browser: String, directory: String)] {
        [("Chromium", configHome + "/chromium"),
         ("Chromium (Flatpak)", home + "/.var/app/org.chromium.Chromium/config/chromium"),
         ("Chromium (snap)", home + "/snap/chromium/common/chromium"),
         ("Google Chrome", configHome + "/google-chrome"),
         ("Google Chrome Beta", configHome + "/google-chrome-beta"),
         ("Google Chrome Dev", configHome + "/google-chrome-unstable"),
         ("Brave", configHome + "/BraveSoftware/Brave-Browser"),
         ("Vivaldi", configHome + "/vivaldi"),
         ("Microsoft Edge", configHome + "/microsoft-edge")]
    }

    /// Where a Chromium profile sends `mailto:`, from its `Preferences`.
    ///
    /// The keys, as `custom_handlers::ProtocolHandlerRegistry` keeps them
    /// (components/custom_handlers/pref_names.cc): `custom_handlers.registered_protocol_handlers`
    /// (`kRegisteredProtocolHandlers`), a list of `{protocol, url, last_modified}`, where the
    /// handler in use for its protocol has `default: true` (`EncodeRegisteredHandlers`);
    /// `custom_handlers.enabled` (`kCustomHandlersEnabled`, true unless set): false turns
    /// every such handler off; `custom_handlers.ignored_protocol_handlers` lists the sites the
    /// person said no to, which change nothing here. With no default handler for `mailto`,
    /// Chromium hands the link to the desktop.
    public static func chromiumRoute(preferences bytes: [UInt8]) -> BrowserProfile.Route {
        guard let document = JSONReader.parse(bytes), case .object = document else { return .unreadable(tr("not JSON")) }
        let handlers = document["custom_handlers"]
        if handlers?["enabled"]?.boolValue == false { return .desktop }
        for handler in handlers?["registered_protocol_handlers"]?.arrayValue ?? [] {
            guard handler["protocol"]?.stringValue == "mailto", handler["default"]?.boolValue == true,
                  let url = handler["url"]?.stringValue else { continue }
            return .website(name: host(of: url), url: url)
        }
        return .desktop
    }

    /// The host of a handler's address, which Chromium's settings show as its name.
    static func host(of url: String) -> String {
        var rest = Substring(url)
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        return String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != ":" })
    }

    // MARK: - Every profile

    /// Every Firefox and Chromium-family profile under `home` and `configHome`, in the order
    /// of the roots above, each with where its `mailto:` links go. A profile whose file
    /// cannot be read is listed with the reason; nothing here fails the check.
    public static func gather(home: String, configHome: String) -> [BrowserProfile] {
        var found: [BrowserProfile] = []
        var seen = Set<String>()
        for (browser, root) in firefoxRoots(home: home, configHome: configHome) where seen.insert(root).inserted {
            switch firefoxProfiles(in: root) {
            case nil:
                continue
            case .failure(let error)?:
                found.append(.init(browser: browser, family: .firefox, profile: "profiles.ini", file: error.path,
                                   route: .unreadable(error.reason)))
            case .success(let profiles)?:
                for (name, directory) in profiles {
                    let file = directory + "/handlers.json"
                    // No handlers.json: Firefox has stored no choice, and asks the desktop.
                    let route = readRoute(file, absent: .desktop, firefoxRoute(handlersJSON:)) ?? .desktop
                    found.append(.init(browser: browser, family: .firefox, profile: name, file: file, route: route))
                }
            }
        }
        for (browser, root) in chromiumRoots(home: home, configHome: configHome) {
            // Chromium's profiles are the directories with a Preferences file: Default,
            // Profile 1, …; not its own System Profile (the profile picker's).
            let names = ((try? directoryNames(root)) ?? []).filter { $0 != "System Profile" }.sorted(by: profileOrder)
            for name in names {
                let file = root + "/" + name + "/Preferences"
                guard let route = readRoute(file, absent: nil, chromiumRoute(preferences:)) else { continue }
                found.append(.init(browser: browser, family: .chromium, profile: name, file: file, route: route))
            }
        }
        return found
    }

    /// `Default` first, then `Profile 2` before `Profile 10`.
    static func profileOrder(_ a: String, _ b: String) -> Bool {
        if (a == "Default") != (b == "Default") { return a == "Default" }
        let number = { (name: String) in Int(name.drop { !$0.isNumber }) ?? 0 }
        if a.hasPrefix("Profile "), b.hasPrefix("Profile ") { return number(a) < number(b) }
        return a < b
    }

    /// The route `parse` reads from the file at `path`; `absent` when there is no such file,
    /// and `unreadable` with the system's reason when it cannot be read.
    private static func readRoute(_ path: String, absent: BrowserProfile.Route?,
                                  _ parse: ([UInt8]) -> BrowserProfile.Route) -> BrowserProfile.Route? {
        do {
            guard let bytes = try readFileIfExists(path) else { return absent }
            return parse(bytes)
        } catch {
            return .unreadable(Failure(error, otherwise: .permanent).message)
        }
    }
}

/// A browser's settings file that cannot be read, and why.
struct BrowserReadError: Error, Sendable {
    public var path: String
    public var reason: String
}
