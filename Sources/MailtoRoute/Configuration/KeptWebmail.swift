import DesktopIntegration

extension Session {
    /// Writes `handler` (`webmail:…`) as `handler=` of `[route]` in the user's config file,
    /// with the browser and profile it opens in (`webmail-browser=`,
    /// `webmail-browser-profile=`; a key not given is removed, so that an old profile does
    /// not outlive its browser): from the next handoff on, webmail opens there. The file
    /// keeps its comments, its other settings and its permissions (`webmail import`).
    public func keepWebmail(handler: String, browser: WebmailBrowser) throws(ConfigurationError) {
        try editConfigFile { (file: KeyFile) -> Void in
            file.set(handler, "route", "handler")
            for (key, value) in [("webmail-browser", browser.desktopID), ("webmail-browser-profile", browser.profile)] {
                if let value { file.set(value, "route", key) } else { file.removeKey("route", key) }
            }
        }
    }
}

extension Webmail {
    /// The `handler=` for a web site a browser registered for `mailto:` (HTML's
    /// `registerProtocolHandler`), whose `url` has `%s` where the escaped link goes: a known
    /// service's name when `url` is that service's compose page (Firefox's Gmail handler is
    /// Gmail's), else a template with `{mailto}` in place of `%s`. Throws, as `handler=`
    /// would, what makes it no webmail mailto-route opens (not https, no `%s`).
    public static func handler(registered url: String) throws(DesktopError) -> String {
        // A word that percent-encoding leaves as it is stands for the link.
        let marker = "MAILTOROUTELINK"
        if let known = Known.allCases.first(where: { $0.composeURL(for: marker).split(separator: marker, omittingEmptySubsequences: false)
            .joined(separator: "%s") == url }) {
            return "webmail:" + known.rawValue
        }
        let pieces = url.split(separator: "%s", omittingEmptySubsequences: false)
        guard pieces.count > 1 else {
            throw DesktopError(.configuration, tr("%@ has no %@ where the link goes", url.visible, "%s"))
        }
        let template = try Template(pieces.joined(separator: "{mailto}"))
        return "webmail:" + template.text
    }
}
