#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MailtoRoute
import Outbox

/// The version `xdg-desktop-portal --version` prints (`xdg-desktop-portal 1.16.0`): it
/// decides which rule picks a portal's backend.
public struct PortalVersion: Comparable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var micro: Int

    public init(_ major: Int, _ minor: Int, _ micro: Int) {
        self.major = major
        self.minor = minor
        self.micro = micro
    }

    /// The last word of the first line, as `major.minor.micro`; `nil` for anything else.
    public init?(versionOutput: String) {
        let line = versionOutput.split(whereSeparator: \.isNewline).first ?? ""
        guard let word = line.split(separator: " ").last else { return nil }
        let parts = word.split(separator: ".").map { Int($0) }
        guard parts.count == 3, let major = parts[0], let minor = parts[1], let micro = parts[2] else { return nil }
        self.init(major, minor, micro)
    }

    public static func < (a: PortalVersion, b: PortalVersion) -> Bool {
        (a.major, a.minor, a.micro) < (b.major, b.minor, b.micro)
    }

    public var description: String { "\(major).\(minor).\(micro)" }

    /// 1.17 (the series that became 1.18) reads portals.conf and takes UseIn as optional.
    var readsPortalsConf: Bool { self >= PortalVersion(1, 17, 0) }
    /// 1.18.2: with nothing chosen, the GTK backend is the last resort.
    var fallsBackToGTK: Bool { self >= PortalVersion(1, 18, 2) }
    /// 1.18.3: `none` for an interface (or as the default) means no backend at all.
    var honoursNone: Bool { self >= PortalVersion(1, 18, 3) }
}

/// One `.portal` file as xdg-desktop-portal reads it (`register_portal` in
/// src/portal-impl.c of 1.16.0 and 1.18.4).
public struct PortalBackend: Sendable, Equatable {
    public var fileName: String
    public var dbusName: String
    public var interfaces: [String]
    /// `nil` when the key is missing (1.16 refuses such a file; 1.18 takes it).
    public var useIn: [String]?

    public init(fileName: String, dbusName: String, interfaces: [String], useIn: [String]?) {
        self.fileName = fileName
        self.dbusName = dbusName
        self.interfaces = interfaces
        self.useIn = useIn
    }

    /// The name portals.conf gives it: the file name up to its last dot (1.18's `source`).
    public var name: String {
        guard let dot = fileName.lastIndex(of: ".") else { return fileName }
        return String(fileName[..<dot])
    }

    /// A file that xdg-desktop-portal skipped, with its reason.
    public struct Rejected: Sendable, Equatable {
        public var fileName: String
        public var reason: String
    }

    /// The `.portal` files of `directory` that `version` takes, and the ones it refuses.
    public static func load(
        directory: String, version: PortalVersion
    ) -> (backends: [PortalBackend], rejected: [Rejected]) {
        var backends: [PortalBackend] = []
        var rejected: [Rejected] = []
        for name in ((try? directoryNames(directory)) ?? []).sorted() where name.hasSuffix(".portal") {
            switch parse(directory + "/" + name, version: version) {
            case .success(let backend): backends.append(backend)
            case .failure(let failure): rejected.append(Rejected(fileName: name, reason: failure.message))
            }
        }
        return (backends, rejected)
    }

    /// One file, checked as `register_portal` checks it.
    static func parse(_ path: String, version: PortalVersion) -> Result<PortalBackend, DesktopError> {
        let file: KeyFile
        do {
            guard let loaded = try KeyFile.load(path) else { return .failure(DesktopError(.configuration, "cannot be read")) }
            file = loaded
        } catch {
            return .failure(error)
        }
        guard let dbusName = file.string("portal", "DBusName") else {
            return .failure(DesktopError(.configuration, "no DBusName in [portal]"))
        }
        guard DBusNames.isBusName(dbusName) else {
            return .failure(DesktopError(.configuration, "not a valid bus name: \(dbusName)"))
        }
        guard file.has("portal", "Interfaces") else {
            return .failure(DesktopError(.configuration, "no Interfaces in [portal]"))
        }
        let interfaces = file.stringList("portal", "Interfaces")
        for interface in interfaces {
            guard DBusNames.isInterfaceName(interface) else {
                return .failure(DesktopError(.configuration, "not a valid interface name: \(interface)"))
            }
            guard interface.hasPrefix("org.freedesktop.impl.portal.") else {
                return .failure(DesktopError(.configuration, "not a portal backend interface: \(interface)"))
            }
        }
        let useIn = file.has("portal", "UseIn") ? file.stringList("portal", "UseIn") : nil
        if useIn == nil, !version.readsPortalsConf {
            return .failure(DesktopError(.configuration, "no UseIn in [portal], which \(version) requires"))
        }
        return .success(PortalBackend(fileName: String(path.split(separator: "/").last ?? ""), dbusName: dbusName,
                                      interfaces: interfaces, useIn: useIn))
    }
}

/// The D-Bus name rules of the specification, as `g_dbus_is_name` and
/// `g_dbus_is_interface_name` apply them to a `.portal` file.
enum DBusNames {
    static func isBusName(_ name: String) -> Bool { isDotted(name, dash: true) }
    static func isInterfaceName(_ name: String) -> Bool { isDotted(name, dash: false) }

    /// Two or more elements of `[A-Za-z0-9_]` (and `-` in bus names), none empty or
    /// starting with a digit, at most 255 bytes.
    private static func isDotted(_ name: String, dash: Bool) -> Bool {
        let elements = name.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard name.utf8.count <= 255, elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
            return element.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): true
                case UInt8(ascii: "-"): dash
                default: false
                }
            }
        }
    }
}

/// One portals.conf file that xdg-desktop-portal 1.18 reads (`[preferred]`).
public struct PortalsConf: Sendable, Equatable {
    public var path: String
    /// The per-interface keys (`org.freedesktop.impl.portal.Email=mailtoroute`).
    public var interfaces: [String: [String]]
    /// `default=`.
    public var defaultPortals: [String]?

    public init(path: String, interfaces: [String: [String]], defaultPortals: [String]?) {
        self.path = path
        self.interfaces = interfaces
        self.defaultPortals = defaultPortals
    }

    /// The file at `path` when it loads and has a `[preferred]` group
    /// (`load_portal_configuration_for_dir`); `nil` otherwise, and the search goes on.
    static func load(_ path: String) -> PortalsConf? {
        guard let file = try? KeyFile.load(path), file.groups.contains("preferred") else { return nil }
        var interfaces: [String: [String]] = [:]
        var defaultPortals: [String]?
        for key in file.keys(in: "preferred") {
            let portals = file.stringList("preferred", key)
            if key == "default" { defaultPortals = portals } else { interfaces[key] = portals }
        }
        return PortalsConf(path: path, interfaces: interfaces, defaultPortals: defaultPortals)
    }

    /// The file 1.18 reads: with `XDG_DESKTOP_PORTAL_DIR` set, that directory only; else
    /// `$XDG_CONFIG_HOME`, each of `$XDG_CONFIG_DIRS`, the sysconfdir, `$XDG_DATA_HOME`,
    /// each of `$XDG_DATA_DIRS` and the datadir, each `/xdg-desktop-portal`; in each,
    /// `DESKTOP-portals.conf` for each desktop, then `portals.conf`
    /// (`load_portal_configuration`). The first that loads is the whole configuration.
    static func find(in directories: [String], desktops: [String]) -> PortalsConf? {
        for directory in directories {
            for name in desktops.map({ "\($0)-portals.conf" }) + ["portals.conf"] {
                if let conf = load(directory + "/" + name) { return conf }
            }
        }
        return nil
    }

    /// `portal_interface_prefers_none`: `none` for the interface, or, with no key for it,
    /// as the default.
    func prefersNone(_ interface: String) -> Bool {
        (interfaces[interface] ?? defaultPortals ?? []).contains("none")
    }

    /// `portal_impl_matches_config`: the interface's own key, else `default=`, names the
    /// backend or `*`.
    func matches(_ backend: PortalBackend, for interface: String) -> Bool {
        guard let portals = interfaces[interface] ?? defaultPortals else { return false }
        return portals.contains(backend.name) || portals.contains("*")
    }
}

/// Which backend xdg-desktop-portal gives an interface, by the rule of its version
/// (`find_portal_implementation` in src/portal-impl.c, 1.16.0 and 1.18.4).
enum PortalRules {
    /// The GTK backend, 1.18's last resort.
    static let gtkBusName = "org.freedesktop.impl.portal.desktop.gtk"

    /// `XDG_CURRENT_DESKTOP` as `version` splits it: 1.16 as it is (compared ignoring
    /// case); 1.18 lower-cased, leaving out names that are not `[A-Za-z0-9_-]+`.
    static func desktops(_ value: String?, version: PortalVersion) -> [String] {
        // g_strsplit: an empty string has no parts, "a::b" has an empty one.
        guard let value, !value.isEmpty else { return [] }
        let names = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard version.readsPortalsConf else { return names }
        return names.filter { name in
            !name.isEmpty && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
                default: false
                }
            }
        }.map { $0.lowercased() }
    }

    /// The order the backends are kept in (`sort_impl_by_use_in_and_name`): those whose
    /// UseIn names an earlier desktop first, then by name (1.16: the file name; 1.18: the
    /// name without `.portal`), byte by byte as `strcmp`.
    static func sorted(_ backends: [PortalBackend], desktops: [String], version: PortalVersion) -> [PortalBackend] {
        func key(_ backend: PortalBackend) -> (Int, [UInt8]) {
            let index = desktops.firstIndex { uses(backend, $0) } ?? desktops.count
            return (index, Array((version.readsPortalsConf ? backend.name : backend.fileName).utf8))
        }
        return backends.sorted { a, b in
            let (ka, kb) = (key(a), key(b))
            return ka.0 != kb.0 ? ka.0 < kb.0 : ka.1.lexicographicallyPrecedes(kb.1)
        }
    }

    static func uses(_ backend: PortalBackend, _ desktop: String) -> Bool {
        (backend.useIn ?? []).contains { $0.lowercased() == desktop.lowercased() }
    }

    /// The backend for `interface` and how it was chosen, or `nil` and why none is.
    static func choose(
        _ interface: String, from backends: [PortalBackend], desktops: [String], version: PortalVersion,
        config: PortalsConf?
    ) -> (backend: PortalBackend?, how: String) {
        let offering = sorted(backends, desktops: desktops, version: version).filter { $0.interfaces.contains(interface) }
        guard !offering.isEmpty else { return (nil, "no backend offers \(interface)") }
        if version.readsPortalsConf {
            if let config {
                if version.honoursNone, config.prefersNone(interface) {
                    return (nil, "\(config.path) says none for it")
                }
                if let chosen = offering.first(where: { config.matches($0, for: interface) }) {
                    let key = config.interfaces[interface] != nil ? interface : "default"
                    return (chosen, "\(key)= of [preferred] in \(config.path) names it")
                }
            }
            for desktop in desktops {
                if let chosen = offering.first(where: { uses($0, desktop) }) {
                    return (chosen, "no portals.conf names a backend for it, and its UseIn names \(desktop) (deprecated)")
                }
            }
            if version.fallsBackToGTK, let gtk = offering.first(where: { $0.dbusName == gtkBusName }) {
                return (gtk, "nothing else is chosen for it: the GTK backend is the last resort")
            }
            let why = config == nil ? "no portals.conf is read" : "\(config?.path ?? "") names none of them"
            return (nil, "\(why), and no UseIn names a desktop of XDG_CURRENT_DESKTOP")
        }
        for desktop in desktops {
            if let chosen = offering.first(where: { uses($0, desktop) }) {
                return (chosen, "its UseIn names \(desktop), and its file name comes first of those that do")
            }
        }
        return (offering[0], "no UseIn names a desktop of XDG_CURRENT_DESKTOP, and its file name comes first")
    }
}
