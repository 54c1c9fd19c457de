#if canImport(Glibc)
import Glibc
#endif
import AddressLookup
import MailtoCore

// Test-only: opens the address books of the session bus at DBUS_SESSION_BUS_ADDRESS and
// asks them, in a process of its own (GIO reads the bus address once per process), so that
// AddressLookupTests can run it against a private bus with a real evolution-data-server.
// Not installed.
//
//   address-book-probe [--timeout SECONDS] [--limit N] [--repeat N] PREFIX...
//
// Prints one JSON object: {"opened": bool, "openMs": number, "books": [name...],
// "queries": [{"prefix", "ms": [one per repeat], "contacts": [{"name", "address",
// "mailbox"}]}]}, the contacts those of the last repeat.

var arguments = Array(CommandLine.arguments.dropFirst())

@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...index + 1)
    return value
}

let timeout = option("--timeout").flatMap(Double.init) ?? 3
let limit = option("--limit").flatMap(Int.init) ?? 10
let repeats = max(1, option("--repeat").flatMap(Int.init) ?? 1)

func json(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(Double(seconds) * 1000 + Double(attoseconds) / 1e15)
}

let clock = ContinuousClock()
var books: AddressBooks?
let openTime = clock.measure { books = AddressBooks.open(timeout: .milliseconds(Int(timeout * 1000))) }
var queries: [String] = []
if let books {
    for prefix in arguments {
        var times: [String] = []
        var found: [Contact] = []
        for _ in 0..<repeats {
            times.append(milliseconds(clock.measure { found = books.contacts(matching: prefix, limit: limit) }))
        }
        let contacts = found.map { "{\"name\": \(json($0.name)), \"address\": \(json($0.address)), \"mailbox\": \(json($0.mailbox))}" }
        queries.append("{\"prefix\": \(json(prefix)), \"ms\": [\(times.joined(separator: ", "))], \"contacts\": [\(contacts.joined(separator: ", "))]}")
    }
}
let names = (books?.names ?? []).map(json).joined(separator: ", ")
print("{\"opened\": \(books != nil), \"openMs\": \(milliseconds(openTime)), \"books\": [\(names)], \"queries\": [\(queries.joined(separator: ", "))]}")
