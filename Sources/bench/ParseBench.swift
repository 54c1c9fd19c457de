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
    // In steps: as one expression it took the type checker over a second.
    let addresses = email.to.count &+ email.cc.count &+ email.bcc.count
    let text = (email.subject?.utf8.count ?? 0) &+ (email.body?.utf8.count ?? 0)
    return addresses &+ text &+ email.headers.count &+ email.dropped.count
}

func parseExtract(_ url: String) -> Int {
    do {
        return checksum(try MailtoURL.parse(url))
    } catch {
        return 0
    }
}

/// One decoded value of a parsed URL, kept in memory that no reference counting touches.
struct DecodedField {
    enum Kind { case to, cc, bcc, subject, body, header(String) }
    var kind: Kind
    var bytes: UnsafeBufferPointer<UInt8>
}

/// The floor under any parser that returns an `EmailData`: the same values built from
/// bytes already decoded and split (fresh strings and arrays, allocated as a parse
/// allocates them), without reading a URL at all. What a parser costs is its time
/// above this line.
struct EmailDataFloor {
    /// The decoded fields of every corpus URL, one after another; `ranges[i]` are URL i's.
    private let fields: UnsafeMutableBufferPointer<DecodedField>
    private let ranges: [Range<Int>]
    private var next = 0

    init(_ urls: [String]) {
        var fields: [DecodedField] = []
        var ranges: [Range<Int>] = []
        func keep(_ text: String) -> UnsafeBufferPointer<UInt8> {
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: text.utf8.count)
            _ = copy.initialize(from: text.utf8)
            return UnsafeBufferPointer(copy)
        }
        for url in urls {
            let email = (try? MailtoURL.parse(url)) ?? EmailData()
            let start = fields.count
            fields += email.to.map { DecodedField(kind: .to, bytes: keep($0)) }
            fields += email.cc.map { DecodedField(kind: .cc, bytes: keep($0)) }
            fields += email.bcc.map { DecodedField(kind: .bcc, bytes: keep($0)) }
            if let subject = email.subject { fields.append(DecodedField(kind: .subject, bytes: keep(subject))) }
            if let body = email.body { fields.append(DecodedField(kind: .body, bytes: keep(body))) }
            fields += email.headers.map { DecodedField(kind: .header($0.key), bytes: keep($0.value)) }
            ranges.append(start..<fields.count)
        }
        self.fields = .allocate(capacity: fields.count)
        _ = self.fields.initialize(from: fields)
        self.ranges = ranges
    }

    /// Builds the next URL's `EmailData` (the URLs in turn, as `rate` passes them).
    mutating func build() -> Int {
        var email = EmailData()
        for index in ranges[next] {
            let text = String(decoding: fields[index].bytes, as: UTF8.self)
            switch fields[index].kind {
            case .to: if email.to.isEmpty { email.to = [text] } else { email.to.append(text) }
            case .cc: if email.cc.isEmpty { email.cc = [text] } else { email.cc.append(text) }
            case .bcc: if email.bcc.isEmpty { email.bcc = [text] } else { email.bcc.append(text) }
            case .subject: email.subject = text
            case .body: email.body = text
            case .header(let name): email.headers[name] = text
            }
        }
        next = next + 1 == ranges.count ? 0 : next + 1
        return checksum(email)
    }
}

func benchParse() {
    // Warm each up once, so none pays for first-touch costs inside its measurement.
    var floor = EmailDataFloor(parseCorpus)
    let floorExtract = { (_: String) in floor.build() }
    for body in [parseExtract, urlComponentsExtract, floorExtract] { _ = rate(parseCorpus, seconds: 0.2, body) }
    let ours = rate(parseCorpus, parseExtract)
    let reference = rate(parseCorpus, urlComponentsExtract)
    let floorRate = rate(parseCorpus, floorExtract)
    print(String(format: "parse: %.0f URLs/s; URLComponents: %.0f URLs/s; ", ours.perSecond, reference.perSecond)
        + untargeted(ours.perSecond / reference.perSecond, format: "%.1f", reference: "URLComponents"))
    print(String(format: "  (the same EmailData values built from bytes already decoded, no parsing: %.0f URLs/s, ratio %.1f)",
                 floorRate.perSecond, floorRate.perSecond / reference.perSecond))
}
