#if canImport(Glibc)
import Glibc
#endif
import MailtoCore
import MIMEMessage

/// The addresses the user sent to, with the name given with each, how often and when last:
/// what the sheet offers as one types in To, Cc and Bcc, most used first. Kept in
/// `$XDG_STATE_HOME/mailto-route/recipients`, in lines of `COUNT TAB LAST TAB ADDRESS TAB
/// NAME`. A send appends one line per recipient (a count of 1, now) with one `write(2)`, as
/// the outcome log does, and a reader adds up the lines of each address. The file is
/// rewritten whole and atomically, one line an address and at most `capacity` addresses
/// (the least used let go first), when an address is forgotten and once appending has made
/// it `compactionSize` long. Holds addresses and names, nothing a message says.
///
/// Appended, not rewritten at each send: reading, rewriting and renaming the file over the
/// old one cost every send about 0.3 ms, most of it in ext4 (a rename over a file starts
/// writing the new one out and frees the old one's blocks, waiting for their discard on a
/// file system mounted with `discard`). Two sends at once no longer lose one's count either.
public struct RecipientHistory: Sendable {
    public struct Entry: Equatable, Sendable {
        public var address: String
        public var name: String?
        public var count: Int
        public var lastUsed: Timestamp

        /// `Name <address>`, or the address, as the sheet shows it and puts it in a field.
        public var readable: String {
            Mailbox.readable(address, name: name)
        }
    }

    public let path: String
    public static let capacity = 1000
    /// Appending past this many bytes rewrites the file merged: `capacity` addresses take
    /// about 50 KB, so thousands of sends go between two rewrites.
    static let compactionSize = 128 * 1_024

    public init(path: String) {
        self.path = path
    }

    /// Every address (at most `capacity`), most used first (then the most recent): the
    /// lines of each address added up, in the order they were written, so that a name
    /// given later replaces the one kept and a line without one keeps it.
    public func entries() throws -> [Entry] {
        guard let bytes = try readFileIfExists(path) else { return [] }
        var entries: [Entry] = []
        // An address is the same whatever the case of its domain.
        var indexByKey: [String: Int] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count >= 3, let count = Int(fields[0]), let last = Int64(fields[1]), !fields[2].isEmpty else { continue }
            let name = fields.count == 4 && !fields[3].isEmpty ? String(fields[3]) : nil
            let lastUsed = Timestamp(secondsSinceEpoch: last)
            let key = fields[2].lowercased()
            guard let index = indexByKey[key] else {
                indexByKey[key] = entries.count
                entries.append(Entry(address: String(fields[2]), name: name, count: count, lastUsed: lastUsed))
                continue
            }
            entries[index].count += count
            entries[index].lastUsed = max(entries[index].lastUsed, lastUsed)
            if let name { entries[index].name = name }
        }
        entries.sort { ($0.count, $0.lastUsed) > ($1.count, $1.lastUsed) }
        return Array(entries.prefix(Self.capacity))
    }

    /// The entries a person typing `prefix` may mean (`addressMatches`), most used first.
    public func matching(_ prefix: String, in entries: [Entry], limit: Int = 8) -> [Entry] {
        Array(entries.filter { addressMatches(prefix, address: $0.address, name: $0.name) }.prefix(limit))
    }

    /// Counts one more message to each of `recipients` (bare addresses, with the names
    /// given with them), now. A name given now replaces the one kept; none keeps it.
    public func record(_ recipients: [String], names: [String: String], now: Timestamp = .now()) throws {
        guard !recipients.isEmpty else { return }
        try makeDirectories(parentDirectory(of: path))
        let lines = recipients.map { Self.line(Entry(address: $0, name: names[$0], count: 1, lastUsed: now)) }.joined()
        let file = try openFile(path, O_WRONLY | O_APPEND | O_CREAT, mode: 0o600)
        try file.writeOnce(Array(lines.utf8))
        let size = Int(try file.status().st_size)
        try file.close()
        if size > Self.compactionSize { try rewrite(try entries()) }
    }

    /// Takes `address` out of the history (a row the user forgot in the sheet).
    public func forget(_ address: String) throws {
        try rewrite(try entries().filter { $0.address.lowercased() != address.lowercased() })
    }

    /// Replaces the file with `entries`, one line each.
    private func rewrite(_ entries: [Entry]) throws {
        try makeDirectories(parentDirectory(of: path))
        // Whole, not durable: a crash may lose the last sends from the suggestions, never
        // anything sent. Synced, this file cost every send two waits for the disk.
        try writeFileAtomically(Array(entries.map(Self.line).joined().utf8), to: path, durable: false)
    }

    /// `entry` as one line of the file.
    private static func line(_ entry: Entry) -> String {
        // A tab or a line break would break the file: a name with one is kept without it.
        let name = (entry.name ?? "").filter { $0 != "\t" && !$0.isNewline }
        return "\(entry.count)\t\(entry.lastUsed.secondsSinceEpoch)\t\(entry.address)\t\(name)\n"
    }
}
