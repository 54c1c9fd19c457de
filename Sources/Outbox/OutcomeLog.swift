#if canImport(Glibc)
import Glibc
#endif
public import MailtoCore

/// One run of mailto-route, as the outcome log keeps it: where the message came from,
/// the path it took and what came of it. Never a body, a subject or a password: the log
/// holds nothing a message says.
public struct Outcome: Equatable, Sendable {
    public var time: Timestamp
    /// `link` (open), `send`, `compose`, `api`, `outbox`, `drafts`…
    public var source: String
    /// `direct`, `compose`, `handoff`, `outbox`, `draft`; `none` for a link that could
    /// not be read.
    public var path: String
    /// `sent`, `queued`, `handedOff`, `saved`, `cancelled`, `failed`.
    public var result: String
    /// The mail program's desktop id, on the handoff path.
    public var handler: String?
    /// `host:port`, on the direct and outbox paths.
    public var server: String?
    /// The account it went (or would go) through, by name.
    public var account: String?
    public var errorKind: ErrorKind?
    /// What went wrong as people meet it, and the library's own words (untranslated).
    public var errorCause: FailureCause?
    public var errorDetail: String?
    /// The outbox entry the message is (or was) in: a held Send's `queued` line and the
    /// `sent` line at the end of its hold name the same entry.
    public var outboxId: String?
    /// `undo` or `later` for a message held in the outbox, not yet tried.
    public var hold: Hold?
    /// A webmail handoff's draft: the mailbox of `account` on `server` (IMAP) it waits in.
    public var mailbox: String?
    /// The report's warnings: what was not taken from the URL, and each file a link
    /// asked for that was not attached, with who asked (docs/design.md rules 2 and 8).
    public var warnings: [String]
    /// How the request arrived (`gio launch`, `portal OpenURI`, `xdg-email`, `Email
    /// portal`, `command line`), and the program that asked, where known.
    public var arrival: String?
    public var requestedBy: String?

    public init(
        time: Timestamp = .now(), source: String, path: String, result: String,
        handler: String? = nil, server: String? = nil, account: String? = nil, errorKind: ErrorKind? = nil,
        warnings: [String] = [], errorCause: FailureCause? = nil, errorDetail: String? = nil, outboxId: String? = nil,
        hold: Hold? = nil, mailbox: String? = nil
    ) {
        self.mailbox = mailbox
        self.errorCause = errorCause
        self.errorDetail = errorDetail
        self.outboxId = outboxId
        self.hold = hold
        self.time = time
        self.source = source
        self.path = path
        self.result = result
        self.handler = handler
        self.server = server
        self.account = account
        self.errorKind = errorKind
        self.warnings = warnings
    }

    /// One line of the log and one element of `log --json`.
    public var json: JSON {
        var members: [(String, JSON)] = [
            ("time", .string(time.iso8601)),
            ("source", .string(source)),
            ("path", .string(path)),
            ("result", .string(result)),
        ]
        if let handler { members.append(("handler", .string(handler))) }
        if let server { members.append(("server", .string(server))) }
        if let account { members.append(("account", .string(account))) }
        if let errorKind { members.append(("errorKind", .string(errorKind.rawValue))) }
        if let errorCause { members.append(("errorCause", .string(errorCause.rawValue))) }
        if let errorDetail { members.append(("errorDetail", .string(errorDetail))) }
        if let outboxId { members.append(("outboxId", .string(outboxId))) }
        if let hold { members.append(("hold", .string(hold.rawValue))) }
        if let mailbox { members.append(("mailbox", .string(mailbox))) }
        if !warnings.isEmpty { members.append(("warnings", .strings(warnings))) }
        if let arrival { members.append(("arrival", .string(arrival))) }
        if let requestedBy { members.append(("requestedBy", .string(requestedBy))) }
        return .object(members)
    }

    init?(json: JSON) {
        guard let time = json["time"]?.stringValue.flatMap(Timestamp.init(iso8601:)),
              let source = json["source"]?.stringValue, let path = json["path"]?.stringValue,
              let result = json["result"]?.stringValue
        else { return nil }
        self.init(
            time: time, source: source, path: path, result: result,
            handler: json["handler"]?.stringValue, server: json["server"]?.stringValue,
            account: json["account"]?.stringValue, errorKind: json["errorKind"]?.stringValue.flatMap(ErrorKind.init(rawValue:)),
            warnings: json["warnings"]?.stringsValue ?? [],
            errorCause: json["errorCause"]?.stringValue.flatMap(FailureCause.init(rawValue:)),
            errorDetail: json["errorDetail"]?.stringValue, outboxId: json["outboxId"]?.stringValue,
            hold: json["hold"]?.stringValue.flatMap(Hold.init(rawValue:)), mailbox: json["mailbox"]?.stringValue
        )
        arrival = json["arrival"]?.stringValue
        requestedBy = json["requestedBy"]?.stringValue
    }
}

/// Counts over the outcome log, for `mailto-route log --stats`.
public struct OutcomeStats: Equatable, Sendable {
    public var total = 0
    /// Lines that are not outcomes (cut short by a full disk, edited by hand): counted,
    /// not hidden.
    public var unreadable = 0
    /// Path → count, most frequent first.
    public var byPath: [(String, Int)] = []
    /// Result → count, most frequent first.
    public var byResult: [(String, Int)] = []
    /// "path result" → count, most frequent first.
    public var byPathAndResult: [(path: String, result: String, count: Int)] = []

    public static func == (lhs: OutcomeStats, rhs: OutcomeStats) -> Bool {
        lhs.total == rhs.total && lhs.unreadable == rhs.unreadable
            && lhs.byPath.elementsEqual(rhs.byPath, by: ==) && lhs.byResult.elementsEqual(rhs.byResult, by: ==)
            && lhs.byPathAndResult.elementsEqual(rhs.byPathAndResult, by: { $0 == $1 })
    }

    public var json: JSON {
        .object([
            ("total", .int(total)),
            ("unreadable", .int(unreadable)),
            ("byPath", .object(byPath.map { ($0.0, JSON.int($0.1)) })),
            ("byResult", .object(byResult.map { ($0.0, JSON.int($0.1)) })),
            ("byPathAndResult", .array(byPathAndResult.map {
                .object([("path", .string($0.path)), ("result", .string($0.result)), ("count", .int($0.count))])
            })),
        ])
    }
}

/// The outcome log (docs/design.md, Files): one JSON line per run, appended with one
/// `write(2)` to a file opened `O_APPEND`, so lines from concurrent runs never interleave.
public struct OutcomeLog: Sendable {
    public let path: String
    /// Longest line kept; longer field values are cut (a log line is not a message).
    static let maximumFieldLength = 256
    /// Most warnings kept per line (a link may name any number of files).
    static let maximumWarnings = 32

    public init(path: String) {
        self.path = path
    }

    /// Appends one line.
    public func append(_ outcome: Outcome) throws {
        try append(contentsOf: [outcome])
    }

    /// Appends one line per outcome with one `write(2)` (a flush of 1,000 messages logs
    /// them together, and no other run's line lands between them).
    public func append(contentsOf outcomes: [Outcome]) throws {
        guard !outcomes.isEmpty else { return }
        try makeDirectories(parentDirectory(of: path))
        var lines: [UInt8] = []
        for outcome in outcomes {
            var cut = outcome
            cut.source = String(cut.source.prefix(OutcomeLog.maximumFieldLength))
            cut.path = String(cut.path.prefix(OutcomeLog.maximumFieldLength))
            cut.result = String(cut.result.prefix(OutcomeLog.maximumFieldLength))
            cut.handler = cut.handler.map { String($0.prefix(OutcomeLog.maximumFieldLength)) }
            cut.server = cut.server.map { String($0.prefix(OutcomeLog.maximumFieldLength)) }
            cut.account = cut.account.map { String($0.prefix(OutcomeLog.maximumFieldLength)) }
            // A warning names a path a link chose, of any length: kept whole up to 1 KiB.
            cut.warnings = cut.warnings.prefix(OutcomeLog.maximumWarnings).map { String($0.prefix(4 * OutcomeLog.maximumFieldLength)) }
            cut.json.write(to: &lines)
            lines.append(0x0A)
        }
        let file = try openFile(path, O_WRONLY | O_APPEND | O_CREAT, mode: 0o600)
        try file.writeOnce(lines)
        try file.close()
    }

    /// The last `count` outcomes, oldest first. Reads only the end of a long log.
    public func recent(_ count: Int) throws -> [Outcome] {
        guard count > 0, let file = try openIfExists(path, O_RDONLY) else { return [] }
        let size = Int(try file.status().st_size)
        var window = min(size, 64 * 1_024)
        while true {
            let bytes = try file.read(count: window, at: size - window)
            var lines = bytes.split(separator: 0x0A)
            // The first line of a window that does not start the file may be cut.
            if window < size, !lines.isEmpty { lines.removeFirst() }
            if lines.count >= count || window == size {
                return lines.suffix(count).compactMap { line in JSONReader.parse(line).flatMap(Outcome.init(json:)) }
            }
            window = min(size, window * 4)
        }
    }

    /// Every outcome in the log, oldest first, and how many lines could not be read.
    public func all() throws -> (outcomes: [Outcome], unreadable: Int) {
        guard let bytes = try readFileIfExists(path) else { return ([], 0) }
        var outcomes: [Outcome] = []
        var unreadable = 0
        for line in bytes.split(separator: 0x0A) {
            if let outcome = JSONReader.parse(line).flatMap(Outcome.init(json:)) {
                outcomes.append(outcome)
            } else {
                unreadable += 1
            }
        }
        return (outcomes, unreadable)
    }

    /// Counts per path, per result, and per both.
    public func stats() throws -> OutcomeStats {
        let (outcomes, unreadable) = try all()
        var stats = OutcomeStats()
        stats.total = outcomes.count
        stats.unreadable = unreadable
        stats.byPath = OutcomeLog.counted(outcomes.map(\.path))
        stats.byResult = OutcomeLog.counted(outcomes.map(\.result))
        let pairs = OutcomeLog.counted(outcomes.map { PathAndResult(path: $0.path, result: $0.result) })
        stats.byPathAndResult = pairs.map { ($0.0.path, $0.0.result, $0.1) }
        return stats
    }

    /// Each distinct value with its count, most frequent first, ties by first appearance.
    static func counted<Key: Hashable>(_ values: [Key]) -> [(Key, Int)] {
        var order: [Key] = []
        var counts: [Key: Int] = [:]
        for value in values {
            if counts[value] == nil { order.append(value) }
            counts[value, default: 0] += 1
        }
        let ranked = order.enumerated().sorted { a, b in
            let (countA, countB) = (counts[a.element] ?? 0, counts[b.element] ?? 0)
            return countA != countB ? countA > countB : a.offset < b.offset
        }
        return ranked.map { ($0.element, counts[$0.element] ?? 0) }
    }
}

private struct PathAndResult: Hashable {
    var path: String
    var result: String
}
