#if canImport(Glibc)
import Glibc
#endif
internal import CGIO

/// The command line's side of the desktop service (mailto-route-desktop
/// `--gapplication-service`, `io.github.mailto_route.MailtoRoute`): it asks the service
/// for a sheet, D-Bus activating it when it does not run, and waits for the sheet to end.
public enum SheetService {
    public static let busName = "io.github.mailto_route.MailtoRoute"
    static let path = "/io/github/mailto_route/MailtoRoute"
    static let interface = "io.github.mailto_route.MailtoRoute1"
    /// How long the service may take to start and take the request: D-Bus activation
    /// (dbus-daemon's own limit is 25 s) and GTK's start.
    public static let startTimeout: Double = 30

    /// mailto-route-desktop, the program of the sheets and the service, beside the running
    /// binary (links resolved), or `nil` when it is not there or cannot be run.
    public static var sheetProgram: String? {
        let path = Files.directory(of: AppInfo.resolved("/proc/self/exe")) + "/mailto-route-desktop"
        return access(path, X_OK) == 0 ? path : nil
    }

    /// Whether the service has its name on the session bus now:
    /// `org.freedesktop.DBus.NameHasOwner`, each step within `callTimeout` seconds.
    public static func isRunning(callTimeout: Double) throws(DesktopError) -> Bool {
        let bus = try BusConnection.session(within: callTimeout)
        let reply = try bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                                 VariantBuilder.tuple([VariantBuilder.string(busName)]), replyType: "(b)", seconds: callTimeout)
        return g_variant_get_boolean(reply.child(0).pointer) != 0
    }

    /// What the sheet's run printed and exited with.
    public struct Outcome: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// Asks the service to run `words` (`open URL --json`, as mailto-route-desktop takes
    /// them) and waits until that sheet has ended. `nil` when there is no service to ask:
    /// no session bus, no service file installed, or a service that could not start (no
    /// display in the activation environment); the caller then starts the sheet itself.
    /// Throws when the service took the request and went away before answering.
    ///
    /// `Open` has a deadline (`startTimeout`); the wait after it has none, since it is the
    /// user's writing time, but it ends when the service leaves the bus
    /// (`NameOwnerChanged`), so a crashed service never holds the click.
    public static func run(_ words: [String], notify: Bool, activationToken: String?) throws(DesktopError) -> Outcome? {
        guard let bus = try? BusConnection.session(within: 5) else { return nil }
        let watch = ServiceWatch()
        return try bus.context.run { () throws(DesktopError) -> Outcome? in
            let userData = Unmanaged.passRetained(watch).toOpaque()
            let finished = bus.gio.pointee.g_dbus_connection_signal_subscribe(
                bus.pointer, nil, interface, "Finished", path, nil, G_DBUS_SIGNAL_FLAGS_NONE,
                serviceSignal, userData, releaseWatch)
            let owner = bus.gio.pointee.g_dbus_connection_signal_subscribe(
                bus.pointer, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
                busName, G_DBUS_SIGNAL_FLAGS_NONE, serviceSignal, Unmanaged.passRetained(watch).toOpaque(), releaseWatch)
            defer {
                bus.gio.pointee.g_dbus_connection_signal_unsubscribe(bus.pointer, finished)
                bus.gio.pointee.g_dbus_connection_signal_unsubscribe(bus.pointer, owner)
            }
            let parameters = VariantBuilder.tuple([
                VariantBuilder.strings(words), g_variant_new_boolean(notify ? 1 : 0),
                VariantBuilder.string(activationToken ?? ""),
            ])
            let request: String
            do throws(DesktopError) {
                let reply = try bus.call(busName, path, interface, "Open", parameters, replyType: "(s)", seconds: startTimeout)
                request = reply.child(0).string ?? ""
            } catch {
                // Not installed, or started and gone at once (GTK could not start there).
                if ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.Spawn",
                    "org.freedesktop.DBus.Error.NameHasNoOwner"].contains(where: { error.message.contains($0) }) {
                    return nil
                }
                throw error
            }
            watch.request = request
            _ = bus.context.iterate(until: { watch.outcome != nil || watch.serviceLeft }, seconds: 1e9)
            if let outcome = watch.outcome { return outcome }
            throw DesktopError(.transient, """
                the desktop service ended before the sheet did (what you wrote is kept: it is offered \
                again, or saved as a draft, the next time a sheet opens)
                """)
        }
    }
}

/// What `serviceSignal` has seen: the `Finished` of our request, or the service leaving.
private final class ServiceWatch {
    var request: String?
    var early: [String: SheetService.Outcome] = [:]
    var outcome: SheetService.Outcome? {
        request.flatMap { early[$0] }
    }
    var serviceLeft = false
}

/// The `GDBusSignalCallback` of `SheetService.run`; `parameters` is lent (transfer none).
private func serviceSignal(
    _ connection: OpaquePointer?, _ sender: UnsafePointer<gchar>?, _ path: UnsafePointer<gchar>?,
    _ interface: UnsafePointer<gchar>?, _ signal: UnsafePointer<gchar>?, _ parameters: OpaquePointer?,
    _ userData: gpointer?
) {
    guard let userData, let signal, let parameters else { return }
    let watch = Unmanaged<ServiceWatch>.fromOpaque(userData).takeUnretainedValue()
    let values = Variant(adopting: g_variant_ref(parameters))
    switch String(cString: signal) {
    case "Finished" where values.isOfType("(siss)"):
        guard let request = values.child(0).string else { return }
        let status = g_variant_get_int32(values.child(1).pointer)
        // Kept by request id: a Finished can only follow its Open's reply, but the reply
        // is read after the signal may already have been dispatched.
        watch.early[request] = SheetService.Outcome(
            status: status, standardOutput: values.child(2).string ?? "", standardError: values.child(3).string ?? "")
    case "NameOwnerChanged" where values.isOfType("(sss)"):
        if values.child(2).string == "" { watch.serviceLeft = true }
    default:
        break
    }
}

/// The `GDestroyNotify` of each subscription: drops the reference it was given.
private func releaseWatch(_ userData: gpointer?) {
    guard let userData else { return }
    Unmanaged<ServiceWatch>.fromOpaque(userData).release()
}
