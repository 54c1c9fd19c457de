import DesktopIntegration
import MIMEMessage

/// Webmail compose pages, opened in the default web browser (GIO's default for
/// `x-scheme-handler/https`) or the one `webmail-browser=` names, in its profile
/// (`WebmailBrowser`): a service mailto-route knows by name (`handler=webmail:gmail`), in
/// one account (`webmail:gmail:jane@gmail.com`), or the user's own compose-URL template
/// (`handler=webmail:https://…{to}…`).
public enum Webmail {
    /// What `handler=webmail:…` names.
    enum Service: Equatable, Sendable {
        case known(Known)
        /// A known service for one account, by its address (`webmail:gmail:jane@gmail.com`):
        /// the way the chooser offers for each account that belongs to the service.
        case account(Known, String)
        case template(Template)

        /// `text` is what follows `webmail:` in `handler=` or `always=`: a known name, that
        /// name and an account's address after a colon, or a template (anything with `://`).
        /// Throws a configuration error that says what is wrong.
        init(handler text: String) throws(DesktopError) {
            if text.contains("://") {
                self = .template(try Template(text))
                return
            }
            if let colon = text.firstIndex(of: ":") {
                let address = String(text[text.index(after: colon)...])
                guard let known = Known(rawValue: String(text[..<colon])) else { throw Self.unknown(String(text[..<colon])) }
                // A bare address, exactly as an account sends from it: no name, no spaces.
                guard (try? Mailbox(parsing: address))?.address == address, !address.contains(where: \.isWhitespace) else {
                    throw DesktopError(.configuration, tr("webmail:%@: '%@' is not an account's address "
                        + "(webmail:SERVICE:ADDRESS, such as webmail:gmail:jane@gmail.com)", text.visible, address.visible))
                }
                self = .account(known, address)
                return
            }
            guard let known = Known(rawValue: text) else { throw Self.unknown(text) }
            self = .known(known)
        }

        /// A service name that is none of the known ones.
        private static func unknown(_ text: String) -> DesktopError {
            DesktopError(.configuration, tr("unknown webmail service '%@' in handler= (known: %@; or webmail:https://… "
                                                + "with {to}, {cc}, {bcc}, {subject}, {body} for any other)",
                                            text, Known.allCases.map(\.rawValue).joined(separator: ", ")))
        }

        /// What follows `webmail:` in the handler id: the name, or the template.
        var rawValue: String {
            switch self {
            case .known(let known): known.rawValue
            case .account(let known, let address): "\(known.rawValue):\(address)"
            case .template(let template): template.text
            }
        }

        /// As the chooser and the report name it: `Gmail`, `Gmail (jane@gmail.com)`, the
        /// template's host.
        var name: String {
            switch self {
            case .known(let known): known.name
            case .account(let known, let address): "\(known.name) (\(address))"
            case .template(let template): template.host
            }
        }

        /// The address of the account it opens, when it names one.
        var account: String? {
            if case .account(_, let address) = self { address } else { nil }
        }

        /// The drafts view of the account `address`, where a draft stored over IMAP shows:
        /// a known service's own; for a template, `drafts` (`webmail-drafts=`) expanded, or
        /// `nil` without one.
        func draftsURL(of address: String, template drafts: String?) throws(DesktopError) -> String? {
            switch self {
            case .known(let known), .account(let known, _): known.draftsURL(of: address)
            case .template: try drafts.map { (text) throws(DesktopError) in try DraftsTemplate(text).expanded(account: address) }
            }
        }

        /// The compose page for `email`.
        func composeURL(for email: EmailData) -> String {
            switch self {
            case .known(let known): known.composeURL(for: MailtoURL.encode(email))
            case .account(let known, let address): known.composeURL(for: MailtoURL.encode(email), account: address)
            case .template(let template): template.expanded(with: email)
            }
        }
    }

    /// The services whose compose URL their makers (or a browser that ships it) document.
    /// Each takes the whole canonical `mailto:` URL as one query (or fragment) value, as
    /// when the browser registered the service as its `mailto:` handler (HTML's
    /// `registerProtocolHandler`, whose `%s` is the escaped URL), so every hfield the URL
    /// carries reaches the page.
    ///
    /// Left out, because no compose URL is documented: Zoho Mail
    /// (the `compose.do?…&ct=` URLs in circulation come from third-party browser extensions,
    /// not from Zoho), GMX (none found) and iCloud Mail (Apple documents none and registers
    /// no handler). `handler=webmail:URL-TEMPLATE` reaches them, or any other service.
    public enum Known: String, CaseIterable, Sendable {
        case gmail, outlook, fastmail, proton, yahoo

        /// How a message names the `handler=` choices: each service, and the template.
        public static var choices: String {
            allCases.map { "webmail:\($0.rawValue)" }.joined(separator: ", ") + tr(", or webmail:URL-TEMPLATE")
        }

        public var name: String {
            switch self {
            case .gmail: "Gmail"
            case .outlook: "Outlook.com"
            case .fastmail: "Fastmail"
            case .proton: "Proton Mail"
            case .yahoo: "Yahoo Mail"
            }
        }

        /// The service the account sending from `address` belongs to: GNOME Online Accounts'
        /// Google accounts are Gmail's (a Google Workspace address too), its Microsoft
        /// (personal) accounts Outlook.com's (`providerType` `google`, `windows_live`); any
        /// other account by its address's domain. `nil`: none of these.
        public static func serving(address: String, providerType: String? = nil) -> Known? {
            switch providerType {
            case "google": return .gmail
            case "windows_live": return .outlook
            default: break
            }
            guard let at = address.lastIndex(of: "@") else { return nil }
            return domains[address[address.index(after: at)...].lowercased()]
        }

        /// The domains whose addresses each service gives out.
        static let domains: [String: Known] = [
            "gmail.com": .gmail, "googlemail.com": .gmail,
            "outlook.com": .outlook, "hotmail.com": .outlook, "live.com": .outlook,
            "fastmail.com": .fastmail,
            "proton.me": .proton, "protonmail.com": .proton,
            "yahoo.com": .yahoo,
        ]

        /// The drafts folder of the account `address`, signed in in this browser: Gmail picks
        /// the account by `authuser` (an address, as Google's own account switcher links);
        /// the others show the one account the browser is signed in to.
        func draftsURL(of address: String) -> String {
            switch self {
            case .gmail: "https://mail.google.com/mail/?authuser=\(URIs.component(address))#drafts"
            case .outlook: "https://outlook.live.com/mail/0/drafts"
            case .fastmail: "https://app.fastmail.com/mail/Drafts/"
            case .proton: "https://mail.proton.me/u/0/drafts"
            case .yahoo: "https://mail.yahoo.com/d/folders/3"
            }
        }

        /// The compose page for `url`, escaped as one query value; for Gmail, in the account
        /// `account` (`authuser`, as for its drafts); the others open the one account the
        /// browser (or its profile: `webmail-browser-profile=`) is signed in to.
        func composeURL(for url: String, account: String? = nil) -> String {
            let value = URIs.component(url)
            switch self {
            // The Gmail handler Firefox ships beside Yahoo's (`?extsrc=mailto&url=%s`).
            case .gmail:
                let user = account.map { "authuser=\(URIs.component($0))&" } ?? ""
                return "https://mail.google.com/mail/?\(user)extsrc=mailto&url=\(value)"
            case .outlook: return "https://outlook.live.com/mail/deeplink/compose?mailtouri=\(value)"
            case .fastmail: return "https://app.fastmail.com/action/compose/?mailto=\(value)"
            // The handler Proton's own web client registers: MAILTO_PROTOCOL_HANDLER_PATH,
            // `/inbox/#mailto=%s` (ProtonMail/WebClients, applications/mail constants.ts).
            case .proton: return "https://mail.proton.me/inbox/#mailto=\(value)"
            // The Yahoo Mail handler Firefox ships (uriTemplate
            // `https://compose.mail.yahoo.com/?To=%s` in mozilla-central's default handlers,
            // asserted by its handler-service tests): `To` takes the whole mailto: URL.
            case .yahoo: return "https://compose.mail.yahoo.com/?To=\(value)"
            }
        }
    }

    /// `handler=webmail:URL-TEMPLATE`: an https:// compose URL with placeholders, each
    /// replaced by that field of the message, percent-encoded as a URL query component
    /// (every byte but the unreserved ones of RFC 3986 §2.3), addresses joined by commas;
    /// `{mailto}` by the whole canonical `mailto:` URL, as a browser's registered handler
    /// takes it in place of its `%s` (`webmail import`).
    struct Template: Equatable, Sendable {
        enum Field: String, CaseIterable, Sendable {
            case to, cc, bcc, subject, body, mailto

            /// What a warning calls the field when the template has no place for it.
            var whatIsLeftOut: String {
                switch self {
                case .to: tr("the To recipients")
                case .cc: tr("the Cc recipients")
                case .bcc: tr("the Bcc recipients")
                case .subject: tr("the subject")
                case .body: tr("the body")
                case .mailto: tr("the message")
                }
            }
        }

        enum Piece: Equatable, Sendable {
            case text(String)
            case field(Field)
        }

        let text: String
        /// The host (and port) of the compose page, which names it in the report.
        let host: String
        let pieces: [Piece]

        var fields: Set<Field> {
            Set(pieces.compactMap { if case .field(let field) = $0 { field } else { nil } })
        }

        init(_ text: String) throws(DesktopError) {
            func invalid(_ why: String) -> DesktopError {
                DesktopError(.configuration, "handler=webmail:\(text.visible): \(why)")
            }
            // Text from the user's file, opened in a browser: plain https, no look-alikes.
            guard text.utf8.count > 8, text.hasASCIICaseInsensitivePrefix("https://") else {
                throw invalid(tr("a webmail template must start with https://"))
            }
            let authority = text.dropFirst(8).prefix { !"/?#".contains($0) }
            guard !authority.isEmpty, !authority.hasPrefix("{"),
                  authority.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) })
            else {
                throw invalid(tr("the part after https:// must be the host of the compose page (letters, digits, '.', "
                    + "'-', a :port), not '%@'", String(authority).visible))
            }
            var pieces: [Piece] = []
            var literal = ""
            var rest = Substring(text)
            while let character = rest.first {
                if character == "{" {
                    guard let close = rest.firstIndex(of: "}") else { throw invalid(tr("a '{' without its '}'")) }
                    let name = String(rest[rest.index(after: rest.startIndex)..<close])
                    guard let field = Field(rawValue: name) else {
                        throw invalid(tr("unknown placeholder {%@} (known: %@)", name.visible,
                                        Field.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", ")))
                    }
                    if !literal.isEmpty { pieces.append(.text(literal)) }
                    literal = ""
                    pieces.append(.field(field))
                    rest = rest[rest.index(after: close)...]
                    continue
                }
                if character == "}" { throw invalid(tr("a '}' without its '{'")) }
                // RFC 3986's characters and nothing else: a space or a control character
                // would be a different URL to every browser.
                guard character.isASCII, character.isLetter || character.isNumber
                    || "-._~:/?#[]@!$&'()*+,;=%".contains(character)
                else {
                    throw invalid(tr("'%@' cannot stand in a URL (percent-encode it)", String(character).visible))
                }
                literal.append(character)
                rest = rest.dropFirst()
            }
            if !literal.isEmpty { pieces.append(.text(literal)) }
            guard pieces.contains(where: { if case .field = $0 { true } else { false } }) else {
                throw invalid(tr("the template names none of {to}, {cc}, {bcc}, {subject}, {body}, {mailto}: the message would not reach the page"))
            }
            self.text = text
            self.host = String(authority)
            self.pieces = pieces
        }

        func expanded(with email: EmailData) -> String {
            pieces.map { piece in
                switch piece {
                case .text(let text): text
                case .field(let field): URIs.component(value(of: field, in: email))
                }
            }.joined()
        }

        func value(of field: Field, in email: EmailData) -> String {
            switch field {
            case .to: email.to.joined(separator: ",")
            case .cc: email.cc.joined(separator: ",")
            case .bcc: email.bcc.joined(separator: ",")
            case .subject: email.subject ?? ""
            case .body: email.body ?? ""
            case .mailto: MailtoURL.encode(email)
            }
        }

        /// What `email` has that this template has no place for (rule 2: named, never
        /// dropped silently): fields without their placeholder, and the other hfields.
        func leftOut(of email: EmailData) -> [String] {
            // The whole URL carries every field and hfield mailto-route took.
            guard !fields.contains(.mailto) else { return [] }
            var left: [String] = []
            for field in Field.allCases where field != .mailto && !fields.contains(field) && !value(of: field, in: email).isEmpty {
                left.append(field.whatIsLeftOut)
            }
            for header in EmailData.safeHeaderNames where email.headers[header]?.isEmpty == false {
                left.append("header \(header)")
            }
            return left
        }
    }

    /// `webmail-drafts=URL-TEMPLATE`: the drafts view of a webmail named by a template, an
    /// https:// URL as a compose template is, with `{account}` (the account's address,
    /// percent-encoded as a query component) its one placeholder, if any.
    struct DraftsTemplate {
        let pieces: [String]

        init(_ text: String) throws(DesktopError) {
            let pieces = text.split(separator: "{account}", omittingEmptySubsequences: false).map(String.init)
            // The rules of a compose template, the placeholder set aside (`{to}` stands in).
            do {
                guard !pieces.joined().contains(where: { $0 == "{" || $0 == "}" }) else { throw DesktopError(.configuration, "") }
                _ = try Template(pieces.joined(separator: "{to}") + (pieces.count == 1 ? "{to}" : ""))
            } catch {
                throw DesktopError(.configuration, "webmail-drafts=\(text.visible): "
                    + tr("a drafts template is an https:// URL of the webmail's host, with {account} its only placeholder"))
            }
            self.pieces = pieces
        }

        func expanded(account address: String) -> String {
            pieces.joined(separator: URIs.component(address))
        }
    }

    /// Opens `url`, `service`'s drafts view, in `browser`: the whole message, attachments
    /// and all, waits there (`IMAPDraftStore` stored it).
    static func openDrafts(at url: String, in service: Service, browser setting: WebmailBrowser, warnings: [String]) throws -> HandoffResult {
        let browser = try setting.app(for: service)
        try setting.open(url, in: browser)
        return HandoffResult(handlerID: "webmail:\(service.rawValue)", handlerName: tr("%@ in %@", service.name, browser.name),
                             warnings: warnings, notCarried: [])
    }

    static func open(_ email: EmailData, in service: Service, browser setting: WebmailBrowser, warnings: [String]) throws -> HandoffResult {
        var report = Leftovers(warnings: warnings)
        report.attachmentsNotCarried(email.attachments, because: tr("%@ compose pages take none", service.name))
        report.htmlNotCarried(email, by: tr("a mailto: URL"))
        if case .template(let template) = service {
            for what in template.leftOut(of: email) {
                report.notCarried.append(what)
                report.warnings.append(tr("%@ not carried: the webmail template has no place for it", what))
            }
        }
        var sent = email
        let asComposeURL = { (email: EmailData) in [service.composeURL(for: email)] }
        // A template without {body} carries none of it, and says so above.
        let carriesBody = if case .template(let template) = service {
            template.fields.contains(.body) || template.fields.contains(.mailto)
        } else { true }
        if carriesBody, !Handoff.bodyFits(email, asComposeURL) {
            sent.body = report.truncating(email, for: service.name) { Handoff.bodyFits($0, asComposeURL) }
        }
        let browser = try setting.app(for: service)
        // A compose URL is not a mailto: URL the browser would hand back to us, and a
        // browser started now may open mailto: links for real later: no loop guard here.
        try setting.open(service.composeURL(for: sent), in: browser)
        return report.result(id: "webmail:\(service.rawValue)", name: tr("%@ in %@", service.name, browser.name))
    }
}
