import Foundation
import Testing
import TestSupport

/// `handler=webmail:…`: the compose page a recording browser (a desktop file for
/// `x-scheme-handler/https` in the sandbox) is started with, exactly.
@Suite struct WebmailTests {
    func sandboxWithBrowser(handler: String) throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.installHandler("browser.desktop", name: "Browser", program: "browser",
                                   mimeTypes: "x-scheme-handler/https;x-scheme-handler/http;")
        try sandbox.write("[route]\nhandler=\(handler)\n", to: "home/.config/mailto-route/config")
        return sandbox
    }

    /// `value` percent-encoded as one query component, by Python's urllib (safe=""), an
    /// encoder that is not ours.
    func component(_ value: String) throws -> String {
        let result = try run("/usr/bin/python3", ["-c", "import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=''), end='')", value])
        guard result.status == 0 else { throw TestServerError(message: "\(result)") }
        return result.stdout
    }

    /// Proton and Yahoo take the whole canonical mailto: URL, as their registered handlers do.
    @Test(arguments: [
        ("proton", "Proton Mail", "https://mail.proton.me/inbox/#mailto="),
        ("yahoo", "Yahoo Mail", "https://compose.mail.yahoo.com/?To="),
    ])
    func namedServicesGetTheWholeURL(service: String, name: String, prefix: String) throws {
        let sandbox = try sandboxWithBrowser(handler: "webmail:\(service)")
        let result = try route(["open", "mailto:a@example.org?subject=Hi&body=a%26b"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "handed off to \(name) in Browser (webmail:\(service))\n")
        let expected = prefix + (try component("mailto:a@example.org?subject=Hi&body=a%26b"))
        #expect(sandbox.recordedArgv("browser") == [expected])
    }

    @Test func aTemplateGetsEachFieldEncodedAsAQueryComponent() throws {
        let template = "https://mail.example.org/compose?to={to}&cc={cc}&bcc={bcc}&su={subject}&body={body}#x"
        let sandbox = try sandboxWithBrowser(handler: "webmail:\(template)")
        let url = "mailto:a@example.org,b@example.org?cc=c@example.org&bcc=d@example.org&subject=Caf%C3%A9%20%26%20more%3F&body=1%2B1%3D2%0D%0A%23end"
        let result = try route(["send", "--handoff", url], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "handed off to mail.example.org in Browser (webmail:\(template))\n")
        let expected = "https://mail.example.org/compose?to=\(try component("a@example.org,b@example.org"))"
            + "&cc=\(try component("c@example.org"))&bcc=\(try component("d@example.org"))"
            + "&su=\(try component("Café & more?"))&body=\(try component("1+1=2\r\n#end"))#x"
        #expect(sandbox.recordedArgv("browser") == [expected])
        #expect(result.stderr.isEmpty, "\(result)")
    }

    /// What the template has no place for is named, and kept: the whole message is saved
    /// as a draft too (rule 2).
    @Test func whatATemplateHasNoPlaceForIsNamedAndKept() throws {
        let sandbox = try sandboxWithBrowser(handler: "webmail:https://mail.example.org/c?to={to}&s={subject}")
        let result = try route(["send", "--handoff", "mailto:a@example.org?cc=c@example.org&subject=S&body=B&in-reply-to=%3Cm@x%3E"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.recordedArgv("browser") == ["https://mail.example.org/c?to=a%40example.org&s=S"])
        #expect(result.stderr.contains("warning: the Cc recipients not carried: the webmail template has no place for it"), "\(result)")
        #expect(result.stderr.contains("warning: the body not carried"))
        #expect(result.stderr.contains("warning: header in-reply-to not carried"))
        #expect(sandbox.drafts.count == 1)
    }

    @Test(arguments: [
        ("http://mail.example.org/?to={to}", "must start with https://"),
        ("https://mail.example.org/?to={too}", "unknown placeholder {too}"),
        ("https://mail.example.org/?to={to", "a '{' without its '}'"),
        ("https://mail.example.org/?to=to}", "a '}' without its '{'"),
        ("https://mail.example.org/compose", "names none of {to}"),
        ("https://{to}/", "must be the host of the compose page"),
        ("https://mail.example.org/?to={to}&x=\u{7F}", "cannot stand in a URL"),
        ("https://user@evil.example/?to={to}", "must be the host of the compose page"),
    ])
    func anInvalidTemplateIsAConfigurationErrorAndTheMessageKept(template: String, problem: String) throws {
        let sandbox = try sandboxWithBrowser(handler: "webmail:\(template)")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("handler=webmail:"), "\(result)")
        #expect(result.stderr.contains(problem), "\(result)")
        #expect(sandbox.drafts.count == 1)
        #expect(sandbox.neverLaunched("browser"))
        // check names the same mistake before any click.
        let check = try route(["check", "--offline"], in: sandbox)
        #expect(check.stdout.contains(problem), "\(check)")
    }

    @Test func anUnknownServiceNamesTheKnownOnesAndTheTemplateForm() throws {
        let sandbox = try sandboxWithBrowser(handler: "webmail:zoho")
        let result = try route(["open", "mailto:a@example.org"], in: sandbox)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("unknown webmail service 'zoho' in handler= (known: gmail, outlook, fastmail, proton, yahoo; or webmail:https://"), "\(result)")
    }

    // MARK: - The account, the browser and its profile (issue 34)

    /// A recording Firefox as the desktop's browser, a recording Chromium beside it, and
    /// `config` as the config file.
    func sandboxWithTwoBrowsers(config: String) throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.installHandler("firefox.desktop", name: "Firefox", program: "firefox",
                                   mimeTypes: "x-scheme-handler/https;x-scheme-handler/http;")
        try sandbox.installHandler("chromium.desktop", name: "Chromium", program: "chromium", mimeTypes: "text/html;")
        try sandbox.write(config, to: "home/.config/mailto-route/config")
        return sandbox
    }

    /// A way of one account with a Firefox profile: Firefox is started with `-P work` and
    /// Gmail's compose page in that account.
    @Test func aWayWithAFirefoxProfileOpensThatProfileInItsAccount() throws {
        let sandbox = try sandboxWithTwoBrowsers(config: "[route]\nhandler=webmail:gmail:jane@gmail.com\nwebmail-browser-profile=work\n")
        let result = try route(["open", "mailto:bob@example.org?subject=Hi"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "handed off to Gmail (jane@gmail.com) in Firefox (webmail:gmail:jane@gmail.com)\n", "\(result)")
        let compose = "https://mail.google.com/mail/?authuser=\(try component("jane@gmail.com"))&extsrc=mailto&url="
            + (try component("mailto:bob@example.org?subject=Hi"))
        #expect(sandbox.recordedArgv("firefox") == ["-P", "work", compose])
        #expect(sandbox.neverLaunched("chromium"))
    }

    /// The way the chooser's Always kept, Gmail in a config account whose group names its
    /// profile: that profile, that account.
    @Test func theKeptWayOfAnAccountOpensInTheAccountsOwnProfile() throws {
        let sandbox = try sandboxWithTwoBrowsers(config: "[route]\nalways=webmail:gmail:jane@gmail.com\nwebmail-browser-profile=home\n"
            + "[account home]\nfrom=Jane Doe <jane@gmail.com>\nhost=127.0.0.1\nport=2525\nsecurity=none\nwebmail-browser-profile=work\n")
        let result = try route(["open", "mailto:bob@example.org"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let compose = "https://mail.google.com/mail/?authuser=\(try component("jane@gmail.com"))&extsrc=mailto&url="
            + (try component("mailto:bob@example.org"))
        #expect(sandbox.recordedArgv("firefox") == ["-P", "work", compose])
    }

    /// `webmail-browser=` names a browser other than the desktop's: a Chromium profile is
    /// its directory, in one word.
    @Test func aNamedChromiumOpensItsProfileDirectory() throws {
        let sandbox = try sandboxWithTwoBrowsers(config: "[route]\nhandler=webmail:fastmail\nwebmail-browser=chromium.desktop\n"
            + "webmail-browser-profile=Profile 1\n")
        let result = try route(["send", "--handoff", "mailto:bob@example.org"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let compose = "https://app.fastmail.com/action/compose/?mailto=" + (try component("mailto:bob@example.org"))
        #expect(sandbox.recordedArgv("chromium") == ["--profile-directory=Profile 1", compose])
        #expect(sandbox.neverLaunched("firefox"))
    }

    /// A profile for a browser that is neither Firefox nor Chromium: said, nothing opened,
    /// the message kept.
    @Test func aProfileForABrowserOfNoKnownFamilyIsAConfigurationError() throws {
        let sandbox = try sandboxWithBrowser(handler: "webmail:gmail")
        try sandbox.write("[route]\nhandler=webmail:gmail\nwebmail-browser-profile=work\n", to: "home/.config/mailto-route/config")
        let result = try route(["open", "mailto:bob@example.org"], in: sandbox)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("webmail-browser-profile=work in [route]: Browser (browser.desktop) is neither a Firefox nor a Chromium browser"), "\(result)")
        #expect(sandbox.neverLaunched("browser"))
        #expect(sandbox.drafts.count == 1)
    }

    /// What the chooser would offer, as check says it: Gmail in the config account that
    /// sends from a Gmail address, not an anonymous Gmail; the others as before.
    @Test func checkOffersGmailInTheAccountThatBelongsToIt() throws {
        let sandbox = try sandboxWithTwoBrowsers(config: "[account home]\nfrom=Jane Doe <jane@gmail.com>\nhost=127.0.0.1\nport=2525\nsecurity=none\n")
        let check = try route(["check", "--offline", "--json"], in: sandbox)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any], "\(check)")
        let ways = ((report["verdict"] as? [String: Any])?["ways"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ways.filter { $0.hasPrefix("webmail:") } == ["webmail:gmail:jane@gmail.com", "webmail:outlook", "webmail:fastmail",
                                                             "webmail:proton", "webmail:yahoo"], "\(check)")
    }
}
