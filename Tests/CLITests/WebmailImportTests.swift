import Foundation
import Testing
import TestSupport

/// `mailto-route webmail import` on a sandbox HOME holding a browser's own settings files
/// (Firefox's profiles.ini and handlers.json, Chromium's Preferences): what it writes, and
/// that the handoff then opens that site in that browser and profile (recording browsers).
@Suite struct WebmailImportTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.installHandler("firefox.desktop", name: "Firefox", program: "firefox",
                                   mimeTypes: "x-scheme-handler/https;x-scheme-handler/http;")
        try sandbox.installHandler("chromium.desktop", name: "Chromium", program: "chromium", mimeTypes: "text/html;")
    }

    /// A Firefox profile `work` whose mailto: links go to Firefox's own Gmail handler.
    func firefoxWithGmail() throws {
        try sandbox.write("[Profile0]\nName=work\nIsRelative=1\nPath=abcd.work\n\n[Profile1]\nName=home\nIsRelative=1\nPath=efgh.home\n",
                          to: "home/.mozilla/firefox/profiles.ini")
        try sandbox.write(#"{"defaultHandlersVersion":{},"mimeTypes":{},"schemes":{"mailto":{"action":2,"handlers":[{"name":"Gmail","uriTemplate":"https://mail.google.com/mail/?extsrc=mailto&url=%s"}]}}}"#,
                          to: "home/.mozilla/firefox/abcd.work/handlers.json")
    }

    /// A Chromium profile `Profile 1` with a site registered for mailto: by its page.
    func chromiumWithASite() throws {
        try sandbox.write(#"{"custom_handlers":{"registered_protocol_handlers":[{"protocol":"mailto","url":"https://webmail.example.org/compose?url=%s","default":true,"last_modified":"13351234567890123"}]}}"#,
                          to: "home/.config/chromium/Profile 1/Preferences")
        try sandbox.write(#"{"custom_handlers":{}}"#, to: "home/.config/chromium/Default/Preferences")
    }

    var configText: String? {
        try? String(contentsOf: sandbox.configHome.appendingPathComponent("mailto-route/config"), encoding: .utf8)
    }

    /// `value` percent-encoded as one query component, by Python's urllib (safe=""), an
    /// encoder that is not ours.
    func component(_ value: String) throws -> String {
        try run("/usr/bin/python3", ["-c", "import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=''), end='')", value]).stdout
    }

    @Test func firefoxsGmailBecomesGmailInThatProfile() throws {
        try firefoxWithGmail()
        let dry = try route(["webmail", "import", "--dry-run"], in: sandbox)
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.stdout.contains("(from Firefox profile work; nothing written: --dry-run)"), "\(dry)")
        #expect(dry.stdout.contains("  handler=webmail:gmail\n  webmail-browser=firefox.desktop\n  webmail-browser-profile=work\n"), "\(dry)")
        #expect(configText == nil, "a dry run writes nothing")

        let imported = try route(["webmail", "import"], in: sandbox)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.hasPrefix("Wrote, in [route] of "), "\(imported)")
        #expect(configText == "[route]\nhandler=webmail:gmail\nwebmail-browser=firefox.desktop\nwebmail-browser-profile=work\n", "\(configText ?? "")")

        let handoff = try route(["send", "--handoff", "mailto:bob@example.org?subject=Hi"], in: sandbox)
        #expect(handoff.status == 0, "\(handoff)")
        #expect(sandbox.recordedArgv("firefox") == ["-P", "work", "https://mail.google.com/mail/?extsrc=mailto&url="
            + (try component("mailto:bob@example.org?subject=Hi"))])
    }

    /// Two profiles keep a site: the person chooses; Chromium's site is a template whose
    /// `{mailto}` takes the whole link, and its profile is a directory.
    @Test func aChromiumProfileChosenAmongTwoBecomesATemplateInThatProfile() throws {
        try firefoxWithGmail()
        try chromiumWithASite()
        let both = try route(["webmail", "import", "--json"], in: sandbox)
        #expect(both.status == 64, "\(both)")
        #expect(both.stdout.contains("Firefox profile work; Chromium profile Profile 1"), "\(both)")
        #expect(configText == nil)

        let imported = try route(["webmail", "import", "--profile", "Profile 1", "--json"], in: sandbox)
        #expect(imported.status == 0, "\(imported)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any], "\(imported)")
        #expect(json["handler"] as? String == "webmail:https://webmail.example.org/compose?url={mailto}")
        #expect(json["webmailBrowser"] as? String == "chromium.desktop" && json["webmailBrowserProfile"] as? String == "Profile 1")
        #expect(json["imported"] as? Bool == true)

        let link = "mailto:bob@example.org?cc=c@example.org&subject=Hi%20there&in-reply-to=%3Cm@x%3E"
        let handoff = try route(["open", link], in: sandbox)
        #expect(handoff.status == 0, "\(handoff)")
        #expect(!handoff.stderr.contains("not carried"), "the whole link goes: \(handoff)")
        #expect(sandbox.recordedArgv("chromium") == ["--profile-directory=Profile 1", "https://webmail.example.org/compose?url="
            + (try component("mailto:bob@example.org?cc=c@example.org&subject=Hi%20there&in-reply-to=%3Cm@x%3E"))])
        #expect(sandbox.neverLaunched("firefox"))
    }

    @Test func nothingToImportSaysSoAndWritesNothing() throws {
        try sandbox.write(#"{"schemes":{"mailto":{"action":4,"handlers":[null]}}}"#, to: "home/.mozilla/firefox/abcd.work/handlers.json")
        try sandbox.write("[Profile0]\nName=work\nIsRelative=1\nPath=abcd.work\n", to: "home/.mozilla/firefox/profiles.ini")
        let result = try route(["webmail", "import"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Nothing to import: no Firefox or Chromium-family profile opens mailto: links in a web site.\n")
        #expect(configText == nil)
    }
}
