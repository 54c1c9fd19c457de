#if canImport(Glibc)
import Glibc
#endif
import MailtoCore
import MIMEMessage

/// The addresses the user sent to, with the name given with each, how often and when last:
/// what the sheet offers as one types in To, Cc and Bcc, most used first. Kept in
/// `$XDG_STATE_HOME/mailto-route/recipients`, one line an address (`COUNT TAB LAST TAB
/// ADDRESS TAB NAME`), rewritten whole and atomically; at most `capacity` addresses, the
/// least used let go first. Holds addresses and names, nothing a message says.
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

    public init(path: String) {
        self.path = path
    }

    /// Every address, most used first (then the most recent).
    public func entries() throws -> [Entry] {
        guard let bytes = try readFileIfExists(path) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count >= 3, let count = Int(fields[0]), let last = Int64(fields[1]), !fields[2].isEmpty else { return nil }
            let name = fields.count == 4 && !fields[3].isEmpty ? String(fields[3]) : nil
            return Entry(address: String(fields[2]), name: name, count: count, lastUsed: Timestamp(secondsSinceEpoch: last))
        }.sorted { ($0.count, $0.lastUsed) > ($1.count, $1.lastUsed) }
    }

    /// The entries a person typing `prefix` may mean (`addressMatches`), most used first.
    public func matching(_ prefix: String, in entries: [Entry], limit: Int = 8) -> [Entry] {
        Array(entries.filter { addressMatches(prefix, address: $0.address, name: $0.name) }.prefix(limit))
    }

    /// Counts one more message to each of `recipients` (bare addresses, with the names
    /// given with them), now. A name given now replaces the one kept; none keeps it.
    public func record(_ recipients: [String], names: [String: String], now: Timestamp = .now()) throws {
        guard !recipients.isEmpty else { return }
        try update { entries in
            for address in recipients {
                // An address is the same whatever the case of its domain.
                let key = address.lowercased()
                if let index = entries.firstIndex(where: { $0.address.lowercased() == key }) {
                    entries[index].count += 1
                    entries[index].lastUsed = now
                    if let name = names[address] { entries[index].name = name }
                } else {
                    entries.append(Entry(address: address, name: names[address], count: 1, lastUsed: now))
                }
            }
        }
    }

    /// Takes `address` out of the history (a row the user forgot in the sheet).
    public func forget(_ address: String) throws {
        try update { entries in entries.removeAll { $0.address.lowercased() == address.lowercased() } }
    }

    private func update(_ change: (inout [Entry]) -> Void) throws {
        try makeDirectories(parentDirectory(of: path))
        var entries = try self.entries()
        change(&entries)
        entries.sort { ($0.count, $0.lastUsed) > ($1.count, $1.lastUsed) }
        // A tab or a line break would break the file: a name with one is kept without it.
        let text = entries.prefix(Self.capacity).map { entry in
            let name = (entry.name ?? "").filter { $0 != "\t" && !$0.isNewline }
            return "\(entry.count)\t\(entry.lastUsed.secondsSinceEpoch)\t\(entry.address)\t\(name)\n"
        }.joined()
        // Whole, not durable: a crash may lose the last sends from the suggestions, never
        // anything sent. Synced, this file cost every send two waits for the disk.
        try writeFileAtomically(Array(text.utf8), to: path, durable: false)
    }
}
