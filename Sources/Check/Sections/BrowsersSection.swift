import DesktopIntegration
import MailtoRoute

/// Each browser profile found, and where its `mailto:` links go: to the desktop's handler,
/// or kept in the browser (a web site, a program of its own), with how to change that. No
/// profile found: no section (the JSON has an empty list).
struct BrowsersSection: CheckSection {
    let profiles: [BrowserProfile]
    /// The desktop's default `mailto:` handler by name, which a link handed on reaches.
    let desktopHandler: String?

    var title: String { tr("Browsers") }

    var rows: [(label: String, value: String)] {
        profiles.flatMap { profile -> [(label: String, value: String)] in
            var rows = [("\(profile.browser) (\(profile.profile))", text(profile))]
            if let fix = profile.fix { rows.append((tr("to change"), fix)) }
            return rows
        }
    }

    private func text(_ profile: BrowserProfile) -> String {
        switch profile.route {
        case .desktop:
            desktopHandler.map { tr("hands mailto: links to the desktop's handler, %@", $0) }
                ?? tr("hands mailto: links to the desktop's handler (none is set)")
        case .website(let name, let url): tr("keeps mailto: links: opens them in %@ (%@)", name, url)
        case .program(let name, let path): tr("opens mailto: links in %@ (%@) itself, not through the desktop's handler", name, path)
        case .asks: tr("asks at each mailto: link which program or site opens it")
        case .unknown(let setting): tr("has a mailto: setting this check does not know (%@)", setting)
        case .unreadable(let reason): tr("%@ cannot be read: %@", profile.file, reason)
        }
    }

    var jsonMembers: [(String, JSON)] {
        [("browsers", .array(profiles.map { profile in
            var name: String?, url: String?, program: String?, error: String?, setting: String?
            let kind: String
            switch profile.route {
            case .desktop: kind = "desktop"
            case .website(let site, let address): (kind, name, url) = ("website", site, address)
            case .program(let title, let path): (kind, name, program) = ("program", title, path)
            case .asks: kind = "asks"
            case .unknown(let raw): (kind, setting) = ("unknown", raw)
            case .unreadable(let reason): (kind, error) = ("unreadable", reason)
            }
            return .object([
                ("browser", .string(profile.browser)), ("family", .string(profile.family.rawValue)),
                ("profile", .string(profile.profile)), ("file", .string(profile.file)), ("mailto", .string(kind)),
                ("name", .string(name)), ("url", .string(url)), ("program", .string(program)), ("setting", .string(setting)),
                ("error", .string(error)), ("fix", .string(profile.fix)),
            ])
        }))]
    }
}

extension BrowserProfile {
    /// The step that hands this profile's `mailto:` links to the desktop, where they stay in
    /// the browser; `nil` where they already go to the desktop (or to mailto-route itself).
    var fix: String? {
        switch route {
        case .website(let name, _):
            switch family {
            case .firefox:
                return tr("in Firefox: Settings → General → Applications → mailto → “Use … (default)”, the desktop's handler")
            case .chromium:
                // Edge moved the page; the others keep Chromium's (Brave and Vivaldi take chrome:// too).
                let page = browser.hasPrefix("Microsoft Edge") ? "edge://settings/content/handlers" : "chrome://settings/handlers"
                return tr("in %@: open %@ and remove %@ for email (mailto)", browser, page, name)
            }
        case .program(_, let path):
            if Self.isMailtoRoute(path) { return nil }
            return tr("in Firefox: Settings → General → Applications → mailto → “Use … (default)”, the desktop's handler")
        case .asks, .desktop, .unknown, .unreadable:
            return nil
        }
    }

    /// Whether a program Firefox starts is mailto-route (its path or command's first word).
    static func isMailtoRoute(_ command: String) -> Bool {
        let program = command.prefix { $0 != " " }
        return program.split(separator: "/").last == "mailto-route"
    }

    /// The warning for a profile whose links never reach the desktop's handler: they stay in
    /// the browser, so neither mailto-route nor the mail program ever sees them.
    var warning: String? {
        guard let fix else { return nil }
        switch route {
        case .website(let name, let url):
            // The site may be what the person wants: webmail import keeps it, for every program.
            return tr("%@ (%@) opens mailto: links in %@ (%@): they never reach mailto-route or your mail program; %@ "
                + "(first, mailto-route webmail import makes %@ mailto-route's way, in this browser and profile)",
                      browser, profile, name, url, fix, name)
        case .program(let name, let path):
            return tr("%@ (%@) opens mailto: links in %@ (%@) itself, not through the desktop's handler; %@",
                      browser, profile, name, path, fix)
        default:
            return nil
        }
    }
}

extension CheckReport {
    var browsersSection: BrowsersSection { BrowsersSection(profiles: browsers, desktopHandler: handler.gioDefault?.name) }
}

extension Check {
    /// The browsers' profiles of this user (`HOME`, `XDG_CONFIG_HOME`).
    static func browserFacts() -> [BrowserProfile] {
        BrowserSettings.gather(home: XDGDirectories.home, configHome: XDGDirectories.configHome)
    }
}
