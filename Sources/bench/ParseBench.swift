import Foundation
import MailtoCore

// `scripts/bench parse`: the mailto: parser against a URLComponents-based extraction.

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

/// The reference: the same fields extracted into the same `EmailData` with Foundation's
/// `URLComponents` (decoded path split on commas; query items by name).
func urlComponentsExtract(_ url: String) -> Int {
    guard let components = URLComponents(string: url) else { return 0 }
    var email = EmailData()
    email.to = components.path.split(separator: ",").map { String($0) }
    for item in components.queryItems ?? [] {
        let value = item.value ?? ""
        switch item.name.lowercased() {
        case "to": email.to += value.split(separator: ",").map { String($0) }
        case "cc": email.cc += value.split(separator: ",").map { String($0) }
        case "bcc": email.bcc += value.split(separator: ",").map { String($0) }
        case "subject": email.subject = value
        case "body": email.body = value
        case let name where EmailData.safeHeaderNames.contains(name): email.headers[name] = value
        default: email.dropped.append(DroppedField(name: item.name, reason: .unknown))
        }
    }
    return checksum(email)
}

func checksum(_ email: EmailData) -> Int {
    email.to.count &+ email.cc.count &+ email.bcc.count &+ (email.subject?.utf8.count ?? 0)
        &+ (email.body?.utf8.count ?? 0) &+ email.headers.count &+ email.dropped.count
}

func parseExtract(_ url: String) -> Int {
    do {
        return checksum(try MailtoURL.parse(url))
    } catch {
        return 0
    }
}

/// The floor under any parser that returns an `EmailData`: building the same values
/// (fresh strings and arrays, as a parse allocates them) from already-parsed results,
/// without reading a URL at all.
let parsedCorpus: [String: EmailData] = Dictionary(uniqueKeysWithValues: parseCorpus.compactMap { url in
    (try? MailtoURL.parse(url)).map { (url, $0) }
})

/// A new string with its own storage, as a parser makes one.
func fresh(_ text: String) -> String {
    String(unsafeUninitializedCapacity: text.utf8.count) { buffer in
        _ = buffer.initialize(from: text.utf8)
        return text.utf8.count
    }
}

func floorExtract(_ url: String) -> Int {
    guard let parsed = parsedCorpus[url] else { return 0 }
    var email = EmailData()
    email.to = parsed.to.map { fresh($0) }
    email.cc = parsed.cc.map { fresh($0) }
    email.bcc = parsed.bcc.map { fresh($0) }
    email.subject = parsed.subject.map { fresh($0) }
    email.body = parsed.body.map { fresh($0) }
    for (name, value) in parsed.headers { email.headers[name] = fresh(value) }
    return checksum(email)
}

func benchParse() {
    // Warm each up once, so none pays for first-touch costs inside its measurement.
    for body in [parseExtract, urlComponentsExtract, floorExtract] { _ = rate(parseCorpus, seconds: 0.2, body) }
    let ours = rate(parseCorpus, parseExtract)
    let reference = rate(parseCorpus, urlComponentsExtract)
    let floor = rate(parseCorpus, floorExtract)
    print(String(format: "parse: %.0f URLs/s; URLComponents: %.0f URLs/s; ratio: %.1f",
                 ours.perSecond, reference.perSecond, ours.perSecond / reference.perSecond))
    print(String(format: "  (building the same EmailData values without parsing: %.0f URLs/s, ratio %.1f)",
                 floor.perSecond, floor.perSecond / reference.perSecond))
}
