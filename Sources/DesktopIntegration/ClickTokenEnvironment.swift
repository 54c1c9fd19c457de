#if canImport(Glibc)
import Glibc
#endif

/// The activation token a launcher gives the program it starts for a click: Wayland's
/// `XDG_ACTIVATION_TOKEN` (xdg-activation-v1), or X11's startup notification id
/// `DESKTOP_STARTUP_ID`, which GIO also sets on Wayland for an entry with
/// `StartupNotify=true`. With it, the window the click opens may take the focus.
public enum ClickTokenEnvironment {
    public static let names = ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"]

    /// The token in an environment: Wayland's first, else the startup id; `nil` when
    /// neither is set to a value.
    public static func token(_ value: (String) -> String?) -> String? {
        names.lazy.compactMap(value).first { !$0.isEmpty }
    }

    /// The token in this process's environment now (`getenv`).
    public static func current() -> String? {
        token { getenv($0).map { String(cString: $0) } }
    }

    /// The token this process was started with, from the environment block `exec` gave it
    /// (`/proc/self/environ`, which `unsetenv` does not change): a program that links
    /// libgtk-4 finds `DESKTOP_STARTUP_ID` gone by `main`, as GDK's constructor
    /// (gdk.c, stash_desktop_startup_notification_id) unsets it when the library loads.
    /// `nil` where that file cannot be read: then `current()`'s.
    public static func atStart() -> String? {
        guard let block = readProcessEnvironment() else { return current() }
        return token(inBlock: block)
    }

    /// The token in an environment block: `NAME=value` entries, each ended by a NUL.
    public static func token(inBlock block: [UInt8]) -> String? {
        var values: [String: String] = [:]
        for entry in block.split(separator: 0) {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: entry[..<equals], as: UTF8.self)
            // The first of a name is the one getenv finds.
            if names.contains(name), values[name] == nil {
                values[name] = String(decoding: entry[(equals + 1)...], as: UTF8.self)
            }
        }
        return token { values[$0] }
    }

    /// Both variables, for the program a click starts in the end (the mail program of a
    /// handoff), from an environment's: each as it is, and one that is not set holding the
    /// other's token. GLib 2.74's launch sets only `DESKTOP_STARTUP_ID`, xdg-desktop-portal
    /// 1.16's only `XDG_ACTIVATION_TOKEN` (GLib 2.76 sets both, to one value), and a mail
    /// program reads one of them: GTK the startup id, Firefox and Qt the Wayland one. Empty
    /// for no token.
    public static func passedOn(_ value: (String) -> String?) -> [String: String] {
        guard let token = token(value) else { return [:] }
        return Dictionary(uniqueKeysWithValues: names.map { name in
            (name, value(name).flatMap { $0.isEmpty ? nil : $0 } ?? token)
        })
    }

    /// `passedOn` of this process's environment now.
    public static func passedOn() -> [String: String] {
        passedOn { getenv($0).map { String(cString: $0) } }
    }

    /// Takes both out of this process's environment, so that no program it starts later
    /// inherits a token that was spent here.
    public static func clear() {
        for name in names { unsetenv(name) }
    }

    private static func readProcessEnvironment() -> [UInt8]? {
        let descriptor = open("/proc/self/environ", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var block: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return block }
            block.append(contentsOf: chunk[..<count])
        }
    }
}
