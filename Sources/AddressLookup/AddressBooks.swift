import Dispatch
public import MailtoCore
import Synchronization
internal import CEBook

/// The user's address books in Evolution Data Server (EDS: Evolution's books, GNOME
/// Contacts', the CardDAV and Google books of GNOME Online Accounts), for the sheet's To, Cc
/// and Bcc completion: the books marked for autocompletion, opened once, then asked as the
/// user types.
///
/// Holds one `ESourceRegistry` and one `EBookClient` per book (`SourceRegistry`,
/// `BookClient`), made by `open` and released when the value goes (on whichever thread lets
/// go of it last). While it lives, the process holds GIO's shared connection to the session
/// bus, which ends the process if the bus goes away (GDBus's exit-on-close), as the
/// desktop service's own GApplication connection already does; the books are read as they
/// were at `open`: a book put in or out of autocompletion later is seen by the next `open`.
///
/// Thread-safe: any thread may call `contacts(matching:limit:)`, and the calls are served one
/// at a time. Each is a D-Bus round trip or two per book, so the sheet calls it from a
/// worker thread, never from the main loop.
public final class AddressBooks: @unchecked Sendable {
    // @unchecked Sendable: `registry` and `books` never change after `open`, and the books
    // are only asked with `serving` held.
    private let registry: SourceRegistry
    private let books: [BookClient]
    private let serving = Mutex(())

    /// The names of the books read ("Personal"), in the registry's order.
    public let names: [String]

    private init(registry: SourceRegistry, books: [BookClient]) {
        self.registry = registry
        self.books = books
        names = books.map(\.source.displayName)
    }

    /// Opens the enabled address books marked for autocompletion, within `timeout`.
    ///
    /// `nil` when there is nothing to read: no session bus, no EDS on it (running or
    /// activatable), no enabled book in autocompletion, or no answer within `timeout`. A
    /// book that cannot be opened is left out and the others are read.
    ///
    /// Blocks: call it off the main loop. The work runs on a thread of its own, so that the
    /// deadline holds whatever the bus and EDS do (a registry that has to be started first
    /// takes its time, and not every libedataserver call can be cancelled): at the deadline
    /// it is cancelled where it can be, and whatever it still makes is released on that
    /// thread when it ends, within GDBus's own call timeouts.
    public static func open(timeout: Duration = .seconds(3)) -> AddressBooks? {
        let attempt = OpenAttempt()
        attempt.start()
        let (seconds, attoseconds) = timeout.components
        return attempt.wait(microseconds: Int(max(0, seconds) * 1_000_000 + max(0, attoseconds) / 1_000_000_000_000))
    }

    /// The open itself, on `OpenAttempt`'s thread: the registry, then each book in turn.
    fileprivate static func make(cancellable: UnsafeMutablePointer<GCancellable>) -> AddressBooks? {
        var problem: String?
        guard let registry = SourceRegistry(cancellable: cancellable, error: &problem) else { return nil }
        let books = registry.autocompletionBooks().compactMap { source in
            BookClient(source: source, cancellable: cancellable, error: &problem)
        }
        guard !books.isEmpty, g_cancellable_is_cancelled(cancellable) == 0 else { return nil }
        return AddressBooks(registry: registry, books: books)
    }

    /// The addresses of the contacts whose name or address begins with `prefix`, at most
    /// `limit`, sorted by name, then address.
    ///
    /// A contact whose full name, given name, family name or nickname begins with `prefix`
    /// (case-insensitively; the local books match the start of any word of the full name,
    /// so "Berg" finds Asa Berg) gives each of its addresses; a contact found by an address
    /// gives only the addresses that begin with `prefix`. One entry per address, the first
    /// book's name for it kept; contact lists are left out. Nothing for an empty prefix.
    public func contacts(matching prefix: String, limit: Int = 10) -> [Contact] {
        let typed = Self.trimmed(prefix)
        guard limit > 0, !typed.isEmpty, let byName = BookQuery.names(beginningWith: typed),
              let byAddress = BookQuery.otherAddresses(beginningWith: typed) else { return [] }
        let lowered = typed.lowercased()
        var found: [Contact] = []
        serving.withLock { _ in
            for book in books {
                for card in book.cards(matching: byName) {
                    found += card.addresses.map { Contact(name: card.name, address: $0) }
                }
                for card in book.cards(matching: byAddress) {
                    // EDS compares its normalized text: should no address pass this simpler
                    // test, the book still said the contact matched.
                    let matching = card.addresses.filter { $0.lowercased().hasPrefix(lowered) }
                    found += (matching.isEmpty ? card.addresses : matching).map { Contact(name: card.name, address: $0) }
                }
            }
        }
        return Self.ranked(found, limit: limit)
    }

    /// One entry per address (compared case-insensitively; the first keeps its name), sorted
    /// by name (a nameless one by its address), then address, case-insensitively; the first
    /// `limit`.
    static func ranked(_ contacts: [Contact], limit: Int) -> [Contact] {
        var seen: Set<String> = []
        var keyed: [(name: String, address: String, contact: Contact)] = []
        for contact in contacts {
            let address = contact.address.lowercased()
            guard seen.insert(address).inserted else { continue }
            keyed.append((contact.name.isEmpty ? address : contact.name.lowercased(), address, contact))
        }
        keyed.sort { ($0.name, $0.address) < ($1.name, $1.address) }
        return keyed.prefix(max(0, limit)).map(\.contact)
    }

    /// `text` without white space at either end (what the user typed before the field's
    /// separator).
    static func trimmed(_ text: String) -> String {
        let characters = text.drop { $0.isWhitespace }
        var end = characters.endIndex
        while end > characters.startIndex, characters[characters.index(before: end)].isWhitespace {
            end = characters.index(before: end)
        }
        return String(characters[..<end])
    }
}

/// One `AddressBooks.open`, on a thread of its own, waited for with a deadline.
///
/// The thread holds a reference until it ends; an open that ends after its caller stopped
/// waiting releases what it made on that thread. Owns one `GCancellable` (`g_cancellable_new`,
/// transfer full, released in `deinit`), cancelled when the caller stops waiting.
private final class OpenAttempt: @unchecked Sendable {
    // @unchecked Sendable: `cancellable` is GCancellable's, which is thread-safe; the rest
    // is a Mutex and a semaphore.
    let cancellable: UnsafeMutablePointer<GCancellable> = g_cancellable_new()
    /// What the open made, until the caller takes it; `abandoned`: the caller stopped waiting.
    private let outcome = Mutex<(made: AddressBooks?, abandoned: Bool)>((nil, false))
    private let settled = DispatchSemaphore(value: 0)

    deinit {
        g_object_unref(UnsafeMutableRawPointer(cancellable))
    }

    /// Starts the open on a thread of its own (`g_thread_new`, the thread detached at once
    /// with `g_thread_unref`), which holds a reference to this attempt until it ends.
    func start() {
        g_thread_unref(g_thread_new("mailto-route-books", runOpenAttempt, Unmanaged.passRetained(self).toOpaque()))
    }

    /// The thread's work: the open, then its result handed over, or dropped (released
    /// here, on this thread, when `books` goes) when nobody waits any more.
    fileprivate func run() {
        let books = AddressBooks.make(cancellable: cancellable)
        outcome.withLock { outcome in
            if !outcome.abandoned { outcome.made = books }
        }
        settled.signal()
    }

    /// Waits at most `microseconds` for the open: what it made, or `nil` when it made
    /// nothing or took longer (then it is cancelled, and abandoned to its thread).
    func wait(microseconds: Int) -> AddressBooks? {
        let inTime = settled.wait(timeout: .now() + .microseconds(microseconds)) == .success
        let made = outcome.withLock { outcome in
            outcome.abandoned = !inTime
            defer { outcome.made = nil }
            return outcome.made
        }
        // Made just after the deadline, it is still taken.
        if made == nil, !inTime { g_cancellable_cancel(cancellable) }
        return made
    }
}

/// The `GThreadFunc` of `OpenAttempt.start`: takes the reference `start` passed.
private func runOpenAttempt(_ data: gpointer?) -> gpointer? {
    guard let data else { return nil }
    Unmanaged<OpenAttempt>.fromOpaque(data).takeRetainedValue().run()
    return nil
}
