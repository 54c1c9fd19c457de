import DesktopIntegration

/// Webmail compose pages, opened in the default web browser (GIO's default for
/// `x-scheme-handler/https`). Each service takes the whole canonical `mailto:` URL, as it
/// does when the browser registered it as the `mailto:` handler.
enum Webmail {
    enum Service: String, CaseIterable, Sendable {
        case gmail, outlook, fastmail

        var name: String {
            switch self {
            case .gmail: "Gmail"
            case .outlook: "Outlook.com"
            case .fastmail: "Fastmail"
            }
        }

        /// The compose page for `url`, escaped as one query value.
        func composeURL(for url: String) -> String {
            let value = URIs.component(url)
            switch self {
            case .gmail: return "https://mail.google.com/mail/?extsrc=mailto&url=\(value)"
            case .outlook: return "https://outlook.live.com/mail/deeplink/compose?mailtouri=\(value)"
            case .fastmail: return "https://app.fastmail.com/action/compose/?mailto=\(value)"
            }
        }
    }

    static func open(_ email: EmailData, in service: Service, warnings: [String]) throws -> HandoffResult {
        var report = Leftovers(warnings: warnings)
        report.attachmentsNotCarried(email.attachments, because: "\(service.name) compose pages take none")
        report.htmlNotCarried(email, by: "a mailto: URL")
        var sent = email
        let asComposeURL = { (email: EmailData) in [service.composeURL(for: MailtoURL.encode(email))] }
        if !Handoff.bodyFits(email, asComposeURL) {
            sent.body = report.truncating(email, for: service.name) { Handoff.bodyFits($0, asComposeURL) }
        }
        guard let browser = Handlers.defaultForScheme("https") else {
            throw DesktopError(.configuration, "handler=webmail:\(service.rawValue), but there is no default web browser (x-scheme-handler/https)")
        }
        // A compose URL is not a mailto: URL the browser would hand back to us, and a
        // browser started now may open mailto: links for real later: no loop guard here.
        try Launcher.launch(browser, uris: asComposeURL(sent))
        return report.result(id: "webmail:\(service.rawValue)", name: "\(service.name) in \(browser.name)")
    }
}
