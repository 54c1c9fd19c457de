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
