@testable import MailtoRoute
import RouteFakes
import Testing

/// Webmail in the right account and browser profile (issue 34), in-process: the chooser
/// offers each known service once per account that belongs to it, its id reads back, the
/// route stores the draft in that account's Drafts, and a profile becomes the browser's
/// own words.
@Suite struct WebmailWaysTests {
    let world: FakeWorld

    init() throws {
        world = try FakeWorld()
        world.mailPrograms.offered = Webmail.Known.allCases.map { Way(kind: .webmail($0.rawValue), name: $0.name, origin: "Firefox") }
        let microsoft = OnlineMailAccount(
            id: "m1", providerType: "windows_live", providerName: "Microsoft", presentationIdentity: "jd@contoso.example",
            emailAddress: "jd@contoso.example", smtpHost: "smtp-mail.outlook.com", smtpUseSsl: false, smtpUseTls: true,
            smtpUserName: "jd@contoso.example", auth: .oauth2)
        world.onlineAccounts.accounts = [FakeOnlineAccounts.google("g1", address: "jane@company.example"), microsoft,
                                         FakeOnlineAccounts.google("g2", address: "jane@gmail.com")]
    }

    static let accounts = """
        [account home]
        from=Jane Doe <jane@gmail.com>
        host=smtp.gmail.com
        user=jane@gmail.com
        password=s3cret
        imap-host=imap.gmail.com
        [account work]
        from=jane@example.org
        host=smtp.example.org
        user=jane
        password=s3cret
        imap-host=imap.example.org

        """

    var webmailWays: [Way] {
        world.session.ways().filter { if case .webmail = $0.kind { true } else { false } }
    }

    /// GOA's Google accounts are Gmail's whatever their domain, its Microsoft ones
    /// Outlook.com's; a config account by its address's domain; each address once. A
    /// service no account belongs to is offered as before.
    @Test func eachServiceIsOfferedOncePerAccountThatBelongsToIt() {
        world.newSession(config: Self.accounts)
        #expect(webmailWays.map(\.name) == ["Gmail (jane@gmail.com)", "Gmail (jane@company.example)",
                                            "Outlook.com (jd@contoso.example)", "Fastmail", "Proton Mail", "Yahoo Mail"])
        #expect(webmailWays.map(\.id) == ["webmail:gmail:jane@gmail.com", "webmail:gmail:jane@company.example",
                                          "webmail:outlook:jd@contoso.example", "webmail:fastmail", "webmail:proton", "webmail:yahoo"])
        #expect(webmailWays.allSatisfy { $0.origin == "Firefox" })
    }

    /// The id `always=` keeps and the handler it hands to read back as the same way, and
    /// Always on it is taken at the next click.
    @Test func aWayOfOneAccountRoundTripsThroughAlwaysAndHandler() throws {
        world.newSession(config: Self.accounts)
        for way in webmailWays {
            let id = try #require(way.id)
            #expect(Way.kind(ofID: id) == way.kind)
            #expect(way.handler == id)
            let service = try Webmail.Service(handler: String(id.dropFirst("webmail:".count)))
            #expect("webmail:" + service.rawValue == id && service.name == way.name)
        }
        world.newSession(config: "[route]\nalways=webmail:gmail:jane@company.example\n" + Self.accounts)
        #expect(world.session.rememberedWay?.name == "Gmail (jane@company.example)")
        #expect(world.session.rememberedWay?.handler == "webmail:gmail:jane@company.example")
        // The account gone, so is its way: the chooser asks again.
        world.onlineAccounts.accounts = []
        world.newSession(config: "[route]\nalways=webmail:gmail:jane@company.example\n" + Self.accounts)
        #expect(world.session.rememberedWay == nil)
    }

    @Test(arguments: ["gmail:", "gmail:jane", "gmail:Jane <jane@gmail.com>", "gmail:jane@gmail.com ", "gmail: jane@gmail.com",
                      "zoho:jane@zoho.com", "gmail:jane@gmail.com:x"])
    func anAccountThatIsNoBareAddressIsAConfigurationError(text: String) {
        #expect(throws: DesktopError.self) { try Webmail.Service(handler: text) }
    }

    /// Gmail's compose page in that account (`authuser`, as its drafts view); the others
    /// have no account in their URL.
    @Test func gmailsComposePageOpensInTheWaysAccount() throws {
        let email = EmailData(to: ["bob@example.com"], subject: "Hi")
        #expect(try Webmail.Service(handler: "gmail:jane@gmail.com").composeURL(for: email)
            == "https://mail.google.com/mail/?authuser=jane%40gmail.com&extsrc=mailto&url=mailto%3Abob%40example.com%3Fsubject%3DHi")
        #expect(try Webmail.Service(handler: "outlook:jd@contoso.example").composeURL(for: email)
            == "https://outlook.live.com/mail/deeplink/compose?mailtouri=mailto%3Abob%40example.com%3Fsubject%3DHi")
    }

    /// The draft goes to the Drafts of the account the way names, not the default account's.
    @Test func theDraftGoesToTheWaysAccount() throws {
        var webmail = FakeMailProgram()
        webmail.id = "webmail:gmail:jane@gmail.com"
        webmail.account = "jane@gmail.com"
        webmail.drafts = "https://mail.example/?u=ADDRESS#drafts"
        world.mailPrograms.program = webmail
        world.newSession(config: "[route]\ndefault=work\n" + Self.accounts)
        let report = world.session.route(RouteRequest(email: EmailData(to: ["bob@example.com"], subject: "Hi"), source: .send,
                                                      forcedPath: .handoff))
        #expect(report.account == "home" && report.server == "imap.gmail.com:993", "\(report)")
        #expect(world.draftsMailbox.stored.map(\.server.host) == ["imap.gmail.com"])
        #expect(world.mailPrograms.program?.draftsOpened == ["https://mail.example/?u=jane@gmail.com#drafts"])
    }

    @Test func theBrowserAndProfileOfRouteAreWhatTheWebmailOpensIn() {
        world.newSession(config: "[route]\nhandler=webmail:gmail\nwebmail-browser=chromium.desktop\nwebmail-browser-profile= Profile 1 \n")
        world.mailPrograms.program = FakeMailProgram()
        _ = world.session.destination()
        #expect(world.mailPrograms.browsers == [WebmailBrowser(desktopID: "chromium.desktop", profile: "Profile 1")])
    }

    /// A way of an account whose group names a browser and profile opens there; any other
    /// webmail way in `[route]`'s.
    @Test func anAccountsOwnBrowserAndProfileAreWhereItsWayOpens() {
        let config = "[route]\nwebmail-browser-profile=home\n[account work]\nfrom=jane@gmail.com\nhost=smtp.gmail.com\n"
            + "webmail-browser=chromium.desktop\nwebmail-browser-profile=Profile 1\n"
        world.mailPrograms.program = FakeMailProgram()
        world.newSession(config: config)
        var request = RouteRequest(email: EmailData(to: ["bob@example.com"]), source: .link, forcedPath: .handoff)
        request.handler = "webmail:gmail:jane@gmail.com"
        _ = world.session.destination(for: request)
        request.handler = "webmail:gmail:jane@company.example"
        _ = world.session.destination(for: request)
        request.handler = "webmail:gmail"
        _ = world.session.destination(for: request)
        #expect(world.mailPrograms.browsers == [WebmailBrowser(desktopID: "chromium.desktop", profile: "Profile 1", group: "[account work]"),
                                                WebmailBrowser(profile: "home"), WebmailBrowser(profile: "home")])
    }

    // MARK: - A browser's registered handler (webmail import)

    /// A site that is a known service's compose page is that service (its drafts view
    /// with it); any other a template whose `{mailto}` takes the whole link.
    @Test func aRegisteredSiteIsAKnownServiceOrATemplateOfTheWholeLink() throws {
        #expect(try Webmail.handler(registered: "https://mail.google.com/mail/?extsrc=mailto&url=%s") == "webmail:gmail")
        #expect(try Webmail.handler(registered: "https://compose.mail.yahoo.com/?To=%s") == "webmail:yahoo")
        #expect(try Webmail.handler(registered: "https://mail.proton.me/inbox/#mailto=%s") == "webmail:proton")
        let handler = try Webmail.handler(registered: "https://outlook.office.com/mail/deeplink/compose?mailtouri=%s")
        #expect(handler == "webmail:https://outlook.office.com/mail/deeplink/compose?mailtouri={mailto}")
        let template = try Webmail.Template("https://outlook.office.com/mail/deeplink/compose?mailtouri={mailto}")
        let email = EmailData(to: ["a@example.org"], cc: ["c@example.org"], subject: "Hi & bye", headers: ["in-reply-to": "<m@x>"])
        #expect(template.expanded(with: email) == "https://outlook.office.com/mail/deeplink/compose?mailtouri="
            + URIs.component(MailtoURL.encode(email)))
        #expect(template.leftOut(of: email).isEmpty, "the whole link carries every field")
    }

    @Test(arguments: ["https://webmail.example.org/compose", "http://webmail.example.org/?u=%s", "https://%s/"])
    func aRegisteredSiteMailtoRouteCannotOpenIsAConfigurationError(url: String) {
        #expect(throws: DesktopError.self) { try Webmail.handler(registered: url) }
    }

    // MARK: - The browser's argv

    static let url = "https://mail.google.com/mail/?authuser=jane%40gmail.com&extsrc=mailto&url=mailto%3Ab%40example.com"

    @Test(arguments: [
        ("/usr/lib/firefox-esr/firefox-esr %u", "work", ["/usr/lib/firefox-esr/firefox-esr", "-P", "work", url]),
        ("librewolf %u", "Home Profile", ["librewolf", "-P", "Home Profile", url]),
        ("/usr/bin/google-chrome-stable %U", "Profile 1", ["/usr/bin/google-chrome-stable", "--profile-directory=Profile 1", url]),
        ("env GDK_BACKEND=x11 brave-browser %U", "Default", ["env", "GDK_BACKEND=x11", "brave-browser", "--profile-directory=Default", url]),
        ("/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=/app/bin/chromium --file-forwarding org.chromium.Chromium @@u %U @@",
         "Profile 2", ["/usr/bin/flatpak", "run", "--branch=stable", "--arch=x86_64", "--command=/app/bin/chromium", "--file-forwarding",
                       "org.chromium.Chromium", "--profile-directory=Profile 2", url]),
    ])
    func aProfileIsTheBrowserFamilysOwnWords(exec: String, profile: String, argv: [String]) throws {
        let line = try #require(ExecLine(exec))
        #expect(try WebmailBrowser.argv(line, browser: "B", profile: profile, url: Self.url) == argv)
    }

    @Test(arguments: [
        ("epiphany %u", "work", "is neither a Firefox nor a Chromium browser"),
        ("firefox %u", "--headless", "is not a profile name"),
        ("firefox %u", "a\nb", "is not a profile name"),
        ("sh -c 'firefox \"$1\"' sh %u", "work", "is neither a Firefox nor a Chromium browser"),
    ])
    func aProfileThatCannotBeNamedSoIsAConfigurationError(exec: String, profile: String, problem: String) throws {
        let line = try #require(ExecLine(exec))
        do {
            _ = try WebmailBrowser.argv(line, browser: "B", profile: profile, url: Self.url)
            Issue.record("no error for \(exec) with \(profile)")
        } catch {
            #expect(error.kind == .configuration && error.message.contains(problem), "\(error)")
        }
    }
}
