/// Where the environment of a D-Bus-activated process comes from. Such a process (the
/// desktop service, a portal backend) is started by the bus, not by the session's shell, so
/// it gets the bus's activation environment: with systemd --user, the user manager's
/// environment (dbus-daemon hands activation to systemd); without it, dbus-daemon's own,
/// as it was started plus what `dbus-update-activation-environment` has sent it.
public enum ActivationEnvironment: Sendable, Equatable {
    /// systemd --user runs: its manager's `Environment` (`NAME=value` entries).
    case systemd([String: String])
    /// No systemd user manager on the bus: dbus-daemon's own, which cannot be read back.
    case busDaemon

    static let service = "org.freedesktop.systemd1"
    static let path = "/org/freedesktop/systemd1"
    static let interface = "org.freedesktop.systemd1.Manager"

    /// Reads `org.freedesktop.systemd1.Manager`'s `Environment` property
    /// (`org.freedesktop.DBus.Properties.Get`) on a private session-bus connection within
    /// `callTimeout` seconds per step. Throws when there is no session bus or it did not
    /// answer in time.
    public static func read(callTimeout: Double = 1) throws(DesktopError) -> ActivationEnvironment {
        let bus = try BusConnection.session(within: callTimeout)
        let parameters = VariantBuilder.tuple([VariantBuilder.string(interface), VariantBuilder.string("Environment")])
        do {
            let reply = try bus.call(service, path, "org.freedesktop.DBus.Properties", "Get", parameters,
                                     replyType: "(v)", seconds: callTimeout)
            var values: [String: String] = [:]
            for entry in reply.child(0).unboxed?.strings ?? [] {
                guard let equals = entry.firstIndex(of: "=") else { continue }
                values[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
            }
            return .systemd(values)
        } catch {
            // The bus's own "nobody has that name": no systemd user manager on this bus.
            let absent = ["ServiceUnknown", "NameHasNoOwner"]
            if absent.contains(where: { error.message.contains("org.freedesktop.DBus.Error.\($0)") }) { return .busDaemon }
            throw error
        }
    }
}
