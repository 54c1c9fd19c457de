import Foundation
import MailtoCore

// `make bench`: each figure next to a reference measured in the same run, as a ratio
// (absolute times on shared machines are noise; ratios in one run are not).

/// Runs `body` over `urls` repeatedly for about `seconds` and returns URLs per second.
func rate(_ urls: [String], seconds: Double = 1.5, _ body: (String) -> Int) -> (perSecond: Double, checksum: Int) {
    var checksum = 0
    var count = 0
    let start = DispatchTime.now().uptimeNanoseconds
    var elapsed: Double = 0
    repeat {
        for url in urls { checksum &+= body(url) }
        count += urls.count
        elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    } while elapsed < seconds
    return (Double(count) / elapsed, checksum)
}

/// A realistic mix: what web pages, mailing-list archives and programs put in links.
let parseCorpus: [String] = [
    "mailto:chris@example.com",
    "mailto:infobot@example.com?subject=current-issue",
    "mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index",
    "mailto:list@example.org?In-Reply-To=%3C3469A91.D10AF4C@example.com%3E",
    "mailto:joe@example.com?cc=bob@example.com&body=hello",
    "mailto:?to=addr1@an.example,addr2@an.example&subject=Meeting%20notes",
    "mailto:user@example.org?subject=caf%C3%A9&body=caf%C3%A9",
    "mailto:sales@shop.example?subject=Order%20%2312345&body=Hello%2C%0D%0A%0D%0AI%20would%20like%20to%20ask%20about%20my%20order.%0D%0A%0D%0AThanks",
    "mailto:support@example.net?subject=Bug%20report%3A%20crash%20on%20start&cc=dev@example.net&bcc=archive@example.net",
    "mailto:Jane%20Doe%20%3Cjane@example.org%3E?subject=Hi%20Jane",
    "mailto:newsletter@example.com?subject=unsubscribe",
    "mailto:a@example.com,b@example.com?subject=Re%3A%20lunch%3F&body=Sure%2C%20at%2012%3A30.",
]

func urlComponentsExtract(_ url: String) -> Int {
    guard let components = URLComponents(string: url) else { return 0 }
    var checksum = components.path.split(separator: ",").count
    for item in components.queryItems ?? [] {
        switch item.name.lowercased() {
        case "to", "cc", "bcc": checksum &+= (item.value ?? "").split(separator: ",").count
        case "subject", "body", "in-reply-to", "references", "keywords": checksum &+= item.value?.utf8.count ?? 0
        default: checksum &+= 1
        }
    }
    return checksum
}

func parseExtract(_ url: String) -> Int {
    guard let email = try? MailtoURL.parse(url) else { return 0 }
    return email.to.count &+ email.cc.count &+ email.bcc.count &+ (email.subject?.utf8.count ?? 0)
        &+ (email.body?.utf8.count ?? 0) &+ email.headers.count &+ email.dropped.count
}

func benchParse() {
    // Warm both up once, so neither pays for first-touch costs inside its measurement.
    _ = rate(parseCorpus, seconds: 0.2, parseExtract)
    _ = rate(parseCorpus, seconds: 0.2, urlComponentsExtract)
    let ours = rate(parseCorpus, parseExtract)
    let reference = rate(parseCorpus, urlComponentsExtract)
    print(String(format: "parse: %.0f URLs/s; URLComponents: %.0f URLs/s; ratio: %.1f",
                 ours.perSecond, reference.perSecond, ours.perSecond / reference.perSecond))
}

let sections: [String: () -> Void] = ["parse": benchParse, "send": benchSend, "memory": benchMemory]
let order = ["parse", "send", "memory"]
let wanted = CommandLine.arguments.count > 1 ? Array(CommandLine.arguments.dropFirst()) : order
for name in wanted {
    guard let section = sections[name] else {
        FileHandle.standardError.write(Data("bench: unknown section '\(name)' (known: \(order.joined(separator: ", ")))\n".utf8))
        exit(64)
    }
    section()
}
