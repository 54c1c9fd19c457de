#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import Outbox

/// What mailto-route remembers of the accounts between runs, in
/// `$XDG_STATE_HOME/mailto-route/accounts` (a GLib key file, written whole and atomically
/// by GLib): the account last chosen in the compose sheet, and each account of GNOME
/// Online Accounts whose sign-in was refused.
///
/// A refusal is kept as the fingerprint of the credential the server refused (the first 16
/// hex digits of its SHA-256; never the token or password itself), or `attention` when GOA
/// itself said the account needs it. While it stands, nothing tries the account again by
/// itself: a retry asks GOA for the credential, and only a different one (the person signed
/// in again, or goa-daemon refreshed the token) goes to the server (docs/design.md rule 9).
/// The person lifts it by hand with `outbox retry` or `outbox flush`. Bounded: at most
/// `maxRefusals` accounts are remembered, the oldest refusal forgotten first, and a
/// refusal goes when its account sends again.
///
/// Two runs that write at once may lose one's change (the last write wins): at worst a
/// second notification, or the last-used account of the other sheet.
public struct AccountMemory: Sendable {
    public let path: String
    static let maxRefusals = 32
    static let lastUsedGroup = "last-used"
    static let refusalPrefix = "refused "
    /// The fingerprint of "GOA said the account needs attention": no credential was had.
    public static let attention = "attention"

    public init(stateDirectory: String) {
        path = stateDirectory + "/accounts"
    }

    /// A remembered refusal.
    public struct Refusal: Sendable, Equatable {
        public var fingerprint: String
        public var since: Timestamp
        public var reason: String
    }

    private func load() -> KeyFile {
        (try? KeyFile.load(path)) ?? KeyFile()
    }

    private func save(_ file: KeyFile) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        guard (try? makeDirectories(directory)) != nil else { return }
        // Remembering is a help, never a condition: a state directory that cannot be
        // written leaves a second notification possible, nothing else.
        try? file.save(to: path)
    }

    /// The account last chosen in the compose sheet.
    public var lastUsed: String? { load().string(Self.lastUsedGroup, "account") }

    public func rememberLastUsed(_ account: String) {
        let file = load()
        guard file.string(Self.lastUsedGroup, "account") != account else { return }
        file.set(account, Self.lastUsedGroup, "account")
        save(file)
    }

    public func refusal(of account: String) -> Refusal? {
        refusal(account, in: load())
    }

    private func refusal(_ account: String, in file: KeyFile) -> Refusal? {
        let group = Self.refusalPrefix + account
        guard let fingerprint = file.string(group, "fingerprint") else { return nil }
        let since = file.string(group, "since").flatMap(Timestamp.init(iso8601:)) ?? Timestamp(secondsSinceEpoch: 0)
        return Refusal(fingerprint: fingerprint, since: since, reason: file.string(group, "reason") ?? "")
    }

    /// Records that `account`'s credential with `fingerprint` was refused; `true` when this
    /// is news (no refusal was remembered, or one of another credential): the person is
    /// told once per refusal.
    @discardableResult
    public func recordRefusal(of account: String, fingerprint: String, reason: String, now: Timestamp) -> Bool {
        let file = load()
        if refusal(account, in: file)?.fingerprint == fingerprint { return false }
        let refused = file.groups.filter { $0.hasPrefix(Self.refusalPrefix) && $0 != Self.refusalPrefix + account }
        if refused.count >= Self.maxRefusals {
            let oldest = refused.min { (file.string($0, "since") ?? "") < (file.string($1, "since") ?? "") }
            if let oldest { file.removeGroup(oldest) }
        }
        let group = Self.refusalPrefix + account
        file.set(fingerprint, group, "fingerprint")
        file.set(now.iso8601, group, "since")
        file.set(reason, group, "reason")
        save(file)
        return true
    }

    /// Forgets `account`'s refusal: it signed in, or the person asked to try again.
    public func clearRefusal(of account: String) {
        let file = load()
        let group = Self.refusalPrefix + account
        guard file.groups.contains(group) else { return }
        file.removeGroup(group)
        save(file)
    }
}
