import Foundation
import Testing
import TestSupport

/// `AddressBooks` end to end: Debian's real evolution-data-server on a private bus, its
/// books filled through libebook from Python (`Servers/seed-address-books.py`), asked by
/// `address-book-probe` in a process of its own (GIO reads the bus address once per process).
@Suite struct AddressBooksTests {
    /// What the probe printed.
    struct Probe {
        var opened: Bool
        var openMilliseconds: Double
        var books: [String]
        /// Per prefix: the mailboxes found.
        var found: [String: [String]]
    }

    static let people = [
        EvolutionDataServer.Person("Asa Berg", ["asa@example.org", "asa.berg@work.example"]),
        EvolutionDataServer.Person(#"Bo "Quote" O'Neil\x"#, ["bo@example.org"], nickname: "bobo"),
        EvolutionDataServer.Person("Ærle Østberg", ["aerle@example.dk"]),
        EvolutionDataServer.Person("No Mail", []),
    ]

    @Test func findsAContactByTheStartOfAnyWordOfItsNameItsNicknameOrAnAddress() throws {
        let eds = try EvolutionDataServer()
        try eds.seed([
            .init("Personal", contacts: Self.people),
            .init("Work", contacts: [.init("Asa Lind", ["lind@work.example"])]),
            .init("Old Job", autocomplete: false, contacts: [.init("Asad Hidden", ["asad@hidden.example"])]),
        ])
        let probe = try runProbe(["As", "asa", "Berg", "asa b", "asa.b", "ASA@EX", "bobo", #"Bo "Q"#, "østb", "lind@", "No", "zz", " "],
                                 environment: eds.environment)
        #expect(probe.opened)
        // The book out of autocompletion is not read; Evolution's built-in one is.
        #expect(Set(probe.books) == ["Personal", "Work"])
        let asa = ["Asa Berg <asa.berg@work.example>", "Asa Berg <asa@example.org>"]
        #expect(probe.found["As"] == asa + ["Asa Lind <lind@work.example>"])
        #expect(probe.found["asa"] == asa + ["Asa Lind <lind@work.example>"])
        #expect(probe.found["Berg"] == asa)
        #expect(probe.found["asa b"] == asa)
        // Found by an address: that address only.
        #expect(probe.found["asa.b"] == ["Asa Berg <asa.berg@work.example>"])
        #expect(probe.found["ASA@EX"] == ["Asa Berg <asa@example.org>"])
        #expect(probe.found["lind@"] == ["Asa Lind <lind@work.example>"])
        let bo = [#""Bo \"Quote\" O'Neil\\x" <bo@example.org>"#]
        #expect(probe.found["bobo"] == bo)
        #expect(probe.found[#"Bo "Q"#] == bo)
        #expect(probe.found["østb"] == ["Ærle Østberg <aerle@example.dk>"])
        // A contact without an address is nothing to complete.
        #expect(probe.found["No"] == [])
        #expect(probe.found["zz"] == [])
        #expect(probe.found[" "] == [])
    }

    @Test func theLimitKeepsTheFirstByName() throws {
        let eds = try EvolutionDataServer()
        try eds.seed([.init("Personal", contacts: Self.people)])
        let probe = try runProbe(["a", "b"], limit: 1, environment: eds.environment)
        #expect(probe.found["a"] == ["Asa Berg <asa.berg@work.example>"])
        #expect(probe.found["b"] == ["Asa Berg <asa.berg@work.example>"])
    }

    @Test func noBookInAutocompletionIsNil() throws {
        let eds = try EvolutionDataServer()
        try eds.seed([.init("Old Job", autocomplete: false, contacts: [.init("Asad Hidden", ["asad@hidden.example"])])])
        // EDS's own book, taken out of autocompletion as Evolution's preferences do.
        let off = try run("/usr/bin/python3", ["-c", """
            import gi
            gi.require_version("EDataServer", "1.2")
            from gi.repository import EDataServer
            registry = EDataServer.SourceRegistry.new_sync(None)
            source = registry.ref_source("system-address-book")
            source.get_extension(EDataServer.SOURCE_EXTENSION_AUTOCOMPLETE).set_include_me(False)
            source.write_sync(None)
            """], environment: eds.environment, timeout: 30)
        try #require(off.status == 0, "\(off)")
        let probe = try runProbe(["As"], environment: eds.environment)
        #expect(!probe.opened)
    }

    /// Nil as soon as the bus says there is no EDS, not at the deadline: that is twice the
    /// harness's patience here, which a probe that waited for it would be killed at.
    @Test func noEvolutionDataServerOnTheBusIsNilAtOnce() throws {
        let sandbox = try Sandbox()
        // A bus that can start nothing.
        let bus = try PrivateSessionBus()
        var environment = sandbox.environment.merging(EvolutionDataServer.schemaEnvironment) { $1 }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let probe = try runProbe(["As"], timeout: 2 * patience, environment: environment)
        #expect(!probe.opened)
    }

    /// As without EDS: nil at once, not at a deadline the harness's patience would end first.
    @Test func noSessionBusIsNilAtOnce() throws {
        let sandbox = try Sandbox()
        // Sandbox.environment: DBUS_SESSION_BUS_ADDRESS=disabled:
        let probe = try runProbe(["As"], timeout: 2 * patience,
                                 environment: sandbox.environment.merging(EvolutionDataServer.schemaEnvironment) { $1 })
        #expect(!probe.opened)
    }

    /// libedataserver aborts the process when its settings schemas cannot be found: they
    /// are looked for first, and their absence is only "no books".
    @Test func withoutEvolutionDataServersSettingsSchemasIsNilNotACrash() throws {
        let eds = try EvolutionDataServer()
        var environment = eds.environment
        environment["GSETTINGS_SCHEMA_DIR"] = nil
        let probe = try runProbe(["As"], environment: environment)
        #expect(!probe.opened)
    }

    @Test func aBusThatNeverAnswersIsNilAtTheDeadline() throws {
        let sandbox = try Sandbox()
        let bus = try silentBus(in: sandbox)
        defer { bus.listener.stop() }
        var environment = sandbox.environment.merging(EvolutionDataServer.schemaEnvironment) { $1 }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        // The bus never answers while the probe runs (its listener outlives the harness's
        // patience): a probe that ends came back at the deadline, and the open still under way
        // on its own thread did not hold the process (it would be killed at the patience).
        let probe = try runProbe(["As"], timeout: 1, environment: environment)
        #expect(!probe.opened)
        // No earlier than the deadline, but for libdispatch's semaphore, which the open waits
        // on and which may come back a few milliseconds before its time.
        #expect(probe.openMilliseconds >= 1000 - 20, "\(probe.openMilliseconds) ms")
    }

    /// The books open cold (the bus starts the registry and the address book factory, and the
    /// factory makes the built-in book, as at the first completion of a session without
    /// Evolution), and a book of a thousand contacts gives its first ones by name, up to the
    /// limit. How long that takes is `scripts/bench books`' figure.
    @Test func booksOpenColdAndAThousandContactsGiveTheLimit() throws {
        let eds = try EvolutionDataServer()
        let cold = try runProbe([], environment: eds.environment)
        #expect(cold.opened)
        let many = (0..<1000).map { index in
            EvolutionDataServer.Person("Person \(index) Example", ["person\(index)@example.org"])
        }
        try eds.seed([.init("Personal", contacts: Self.people + many)])
        let probe = try runProbe(["asa", "Person 12", "p", "zz"], limit: 10, environment: eds.environment)
        #expect(probe.opened)
        #expect(probe.found["asa"] == ["Asa Berg <asa.berg@work.example>", "Asa Berg <asa@example.org>"])
        // Person 12 and Person 120 to 129: the first ten by name.
        #expect(probe.found["Person 12"] == ["Person 12 Example <person12@example.org>"]
            + (120...128).map { "Person \($0) Example <person\($0)@example.org>" })
        #expect(probe.found["p"]?.count == 10)
        #expect(probe.found["zz"] == [])
    }

    // MARK: -

    private func runProbe(
        _ prefixes: [String], timeout: Double = 30, limit: Int = 10, environment: [String: String]
    ) throws -> Probe {
        let result = try run(builtExecutable("address-book-probe"),
                             ["--timeout", String(timeout), "--limit", String(limit)] + prefixes,
                             environment: environment)
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw TestSupportError("address-book-probe: \(result)")
        }
        var probe = Probe(opened: object["opened"] as? Bool ?? false, openMilliseconds: object["openMs"] as? Double ?? 0,
                          books: object["books"] as? [String] ?? [], found: [:])
        for query in object["queries"] as? [[String: Any]] ?? [] {
            guard let prefix = query["prefix"] as? String else { continue }
            let contacts = query["contacts"] as? [[String: Any]] ?? []
            probe.found[prefix] = contacts.compactMap { $0["mailbox"] as? String }
        }
        return probe
    }
}
