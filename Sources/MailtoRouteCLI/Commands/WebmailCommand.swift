import Check
import MailtoRoute

/// `mailto-route webmail import [--profile NAME] [--dry-run] [--json]`: the webmail a
/// browser profile opens `mailto:` links in by itself (`WebmailImport`) becomes the
/// handoff of `[route]`, in that browser and profile, so that every program's links go
/// there, not only that browser's.
enum WebmailCommand: Command {
    static let name = "webmail"
    static let summary = trNoop("Hand off to the webmail a browser profile keeps for mailto: links.")
    static let usage = "webmail import [--profile NAME] [--dry-run] [--json]"
    static let options: [OptionSpec] = [
        .single("--profile", "NAME", trNoop("the profile to import, where several have one")),
        .flag("--dry-run", trNoop("say what would be written, and write nothing")),
        .flag("--json", trNoop("print the result as one JSON object")),
    ]
    static let arguments: [(name: String, help: String)] = [
        ("import", trNoop("make it handler= in [route], with its browser and profile")),
    ]
    static let maxPositionals = 1

    static func run(_ arguments: Arguments, context: Context) throws -> ExitStatus {
        guard let action = arguments.positionals.first else { throw UsageError(tr("webmail needs an action: import"), usage: fullUsage) }
        guard action == "import" else { throw UsageError(tr("unknown webmail action '%@'", action), usage: fullUsage) }
        let output = context.output
        let json = arguments.has("--json")
        let session = context.session()
        let found = WebmailImport.ways(from: BrowserSettings.gather(home: session.paths.home, configHome: session.paths.configHome))
        let wanted = arguments.value("--profile")
        let chosen = wanted.map { name in found.filter { $0.profile.profile == name } } ?? found
        let names = found.map { tr("%@ profile %@", $0.profile.browser, $0.profile.profile) }.joined(separator: "; ")
        guard let taken = chosen.first else {
            if let wanted, !found.isEmpty {
                throw UsageError(tr("no browser profile named %@ keeps mailto: links for a web site (%@)", wanted, names), usage: fullUsage)
            }
            if json {
                output.print(JSON.object([("imported", .bool(false)), ("file", .string(session.paths.configFile))]).serialized)
            } else {
                output.print(tr("Nothing to import: no Firefox or Chromium-family profile opens mailto: links in a web site."))
            }
            return .success
        }
        guard chosen.count == 1 else {
            throw UsageError(tr("more than one browser profile keeps mailto: links for a web site (%@): choose one with --profile", names),
                             usage: fullUsage)
        }
        let way = try taken.way.get()
        let dryRun = arguments.has("--dry-run")
        if !dryRun { try session.keepWebmail(handler: way.handler, browser: way.browser) }
        let from = tr("%@ profile %@", taken.profile.browser, taken.profile.profile)
        if json {
            output.print(JSON.object([
                ("imported", .bool(!dryRun)), ("file", .string(session.paths.configFile)), ("handler", .string(way.handler)),
                ("webmailBrowser", .string(way.browser.desktopID)), ("webmailBrowserProfile", .string(way.browser.profile)),
                ("browser", .string(taken.profile.browser)), ("profile", .string(taken.profile.profile)),
                ("source", .string(taken.profile.file)),
            ]).serialized)
            return .success
        }
        let keys = ["handler=" + way.handler, "webmail-browser=" + (way.browser.desktopID ?? ""),
                    "webmail-browser-profile=" + (way.browser.profile ?? "")]
        output.print(dryRun ? tr("Would write, in [route] of %@ (from %@; nothing written: --dry-run):", session.paths.configFile, from)
                            : tr("Wrote, in [route] of %@ (from %@):", session.paths.configFile, from))
        for key in keys { output.print("  " + key) }
        return .success
    }
}
