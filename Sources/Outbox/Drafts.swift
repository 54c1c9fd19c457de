#if canImport(Glibc)
import Glibc
#endif
public import MailtoCore
import MIMEMessage

/// One saved draft, as listed.
public struct Draft: Equatable, Sendable {
    public var id: String
    /// The `.eml` file.
    public var path: String
    /// When it was saved (the file's modification time).
    public var saved: Timestamp
    /// The message's own `Date` field, as written.
    public var date: String?
    /// Decoded (RFC 2047), for display.
    public var subject: String?
    /// The To and Cc fields, as written.
    public var recipients: [String]
    public var size: Int

    public var json: JSON {
        .object([
            ("id", .string(id)),
            ("path", .string(path)),
            ("saved", .string(saved.iso8601)),
            ("date", .string(date)),
            ("subject", .string(subject)),
            ("recipients", .strings(recipients)),
            ("size", .int(size)),
        ])
    }
}

/// Saved drafts (docs/design.md, Files): `<id>.eml` in `directory`, one whole RFC 5322 message
/// each, written atomically and durably (0600, directory 0700). The `.eml` is the whole
/// record: what a listing shows is read from its header fields, so a draft the user
/// copied in or edited by hand lists just the same.
public struct Drafts: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public func path(_ id: String) -> String {
        directory + "/" + id + ".eml"
    }

    /// Saves `message` as a new draft; when this returns it is on disk for good.
    @discardableResult
    public func save(_ message: [UInt8]) throws -> Draft {
        try makeDirectories(directory)
        var id = EntryID.make()
        while try fileStatus(path(id)) != nil { id = EntryID.make() }
        try writeFileAtomically(message, to: path(id))
        return try draft(id)
    }

    /// Every draft, oldest first.
    public func list() throws -> [Draft] {
        var drafts: [Draft] = []
        for name in try directoryNames(directory).sorted() where name.hasSuffix(".eml") && !name.hasPrefix(".") {
            let id = String(name.dropLast(4))
            guard EntryID.isValid(id) else { continue }
            do {
                drafts.append(try draft(id))
            } catch let error as OutboxError where error.kind == .input {
                continue  // removed since the listing
            }
        }
        return drafts
    }

    /// One draft's listing fields.
    public func draft(_ id: String) throws -> Draft {
        try Outbox.validate(id)
        guard let file = try openIfExists(path(id), O_RDONLY) else {
            throw OutboxError(.input, tr("no draft '%@'", id))
        }
        let status = try file.status()
        let headers = HeaderSection(try file.read(count: 65_536, at: 0))
        let recipients = ["to", "cc"].compactMap { headers.decoded($0) }.filter { !$0.isEmpty }
        return Draft(
            id: id, path: path(id), saved: Timestamp(secondsSinceEpoch: Int64(status.st_mtim.tv_sec)),
            date: headers["date"], subject: headers.decoded("subject"), recipients: recipients,
            size: Int(status.st_size)
        )
    }

    /// The draft's message, for `drafts send ID`.
    public func read(_ id: String) throws -> [UInt8] {
        try Outbox.validate(id)
        guard let bytes = try readFileIfExists(path(id)) else {
            throw OutboxError(.input, tr("no draft '%@'", id))
        }
        return bytes
    }

    /// Deletes a draft, durably.
    public func drop(_ id: String) throws {
        try Outbox.validate(id)
        guard try fileStatus(path(id)) != nil else {
            throw OutboxError(.input, tr("no draft '%@'", id))
        }
        try removeFile(path(id))
        try syncDirectory(directory)
    }
}
