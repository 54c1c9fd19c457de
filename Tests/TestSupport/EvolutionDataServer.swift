import Foundation

/// Debian's real Evolution Data Server (evolution-data-server) on a private session bus,
/// with every file it keeps in a sandbox: its registry (`evolution-source-registry`,
/// `org.gnome.evolution.dataserver.Sources5`) and its address book factory
/// (`evolution-addressbook-factory`, `AddressBook10`) are started by the bus when first
/// asked for, as on a desktop, and their books are written under the sandbox's
/// `XDG_CONFIG_HOME/evolution` and `XDG_DATA_HOME/evolution`. Stopped when released.
public final class EvolutionDataServer: @unchecked Sendable {
    /// A book to fill (`Servers/seed-address-books.py`): "Personal" is EDS's built-in book,
    /// any other name a new local book, in autocompletion or not.
    public struct Book: Sendable {
        public var name: String
        public var autocomplete: Bool
        public var contacts: [Person]

        public init(_ name: String, autocomplete: Bool = true, contacts: [Person]) {
            self.name = name
            self.autocomplete = autocomplete
            self.contacts = contacts
        }
    }

    public struct Person: Sendable {
        public var fullName: String
        public var emails: [String]
        public var nickname: String?

        public init(_ fullName: String, _ emails: [String], nickname: String? = nil) {
            self.fullName = fullName
            self.emails = emails
            self.nickname = nickname
        }
    }

    public let sandbox: Sandbox
    public let bus: PrivateSessionBus
    private var stopped = false

    /// The environment of a program that uses these books: the sandbox's, on this bus, with
    /// EDS's settings schemas (`schemaEnvironment`).
    public var environment: [String: String] {
        var environment = sandbox.environment.merging(Self.schemaEnvironment) { $1 }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        return environment
    }

    /// XDG_DATA_DIRS is the sandbox's, so GLib would not find the settings schemas that EDS,
    /// and libedataserver in every program that uses it, read (a missing schema aborts the
    /// process): Debian's compiled ones, read from where they are. Settings live in memory:
    /// nothing written through dconf, which is a D-Bus service of its own.
    public static let schemaEnvironment = [
        "GSETTINGS_SCHEMA_DIR": "/usr/share/glib-2.0/schemas", "GSETTINGS_BACKEND": "memory",
    ]

    /// The D-Bus names EDS's processes own on the bus, by which they are found to be stopped.
    private static let names = ["org.gnome.evolution.dataserver.Sources5", "org.gnome.evolution.dataserver.AddressBook10"]

    public init() throws {
        sandbox = try Sandbox(prefix: "mailto-route-eds")
        // Only EDS's own two services, copied from Debian's: with the system's whole
        // directory, any session service installed here (portals, notification daemons)
        // could be started on this bus too.
        let services = sandbox.root.appendingPathComponent("dbus-services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        for name in Self.names {
            let file = "\(name).service"
            try FileManager.default.copyItem(atPath: "/usr/share/dbus-1/services/\(file)",
                                             toPath: services.appendingPathComponent(file).path)
        }
        bus = try PrivateSessionBus(serviceDirectory: services,
                                    environment: sandbox.environment.merging(Self.schemaEnvironment) { $1 })
    }

    /// Fills `books` through libebook from Python; throws with the script's output when
    /// it fails.
    public func seed(_ books: [Book]) throws {
        let spec = books.map { book -> [String: Any] in
            [
                "name": book.name, "autocomplete": book.autocomplete,
                "contacts": book.contacts.map { person -> [String: Any] in
                    var contact: [String: Any] = ["full_name": person.fullName, "emails": person.emails]
                    if let nickname = person.nickname { contact["nickname"] = nickname }
                    return contact
                },
            ]
        }
        let file = sandbox.root.appendingPathComponent("books-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: spec).write(to: file)
        let script = packageRoot.appendingPathComponent("Tests/TestSupport/Servers/seed-address-books.py").path
        let result = try run("/usr/bin/python3", [script, file.path], environment: environment, timeout: 60)
        guard result.status == 0 else { throw TestSupportError("seeding the address books failed: \(result)") }
    }

    /// Stops the bus, and with it EDS: its processes leave when their bus connection
    /// closes; any still there after 10 s is killed (the process the bus knew, held by
    /// its pidfd).
    public func stop() {
        guard !stopped else { return }
        stopped = true
        let processes = Self.names.compactMap { name in (try? bus.processID(of: name)).map(ProcessReference.init) }
        bus.stop()
        let started = Date()
        for process in processes where !process.waitForExit(seconds: max(0, 10 + started.timeIntervalSinceNow)) {
            process.signal(SIGKILL)
        }
    }

    deinit {
        stop()
    }
}

/// A unix socket that listens and never accepts, as the address of a bus: connecting
/// succeeds, authentication never ends. Stop `listener` when done; it ends by itself
/// after 90 s (SIGALRM), should the test process die first.
public func silentBus(in sandbox: Sandbox) throws -> (address: String, listener: ServerProcess) {
    let socket = sandbox.root.appendingPathComponent("silent-bus").path
    let ready = sandbox.root.appendingPathComponent("silent-bus.ready").path
    let listener = try ServerProcess(["/usr/bin/python3", "-c", """
        import signal, socket, sys
        s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
        open(sys.argv[2], "w").close(); signal.alarm(90); signal.pause()
        """, socket, ready])
    try listener.waitForReady(ready, name: "the silent bus listener")
    return ("unix:path=\(socket)", listener)
}
