#if canImport(Glibc)
import Glibc
#endif
internal import CGIO
import MailtoCore
import Synchronization

/// The command line's side of the desktop service (mailto-route-desktop
/// `--gapplication-service`, `io.github.mailto_route.MailtoRoute`): it asks the service
/// for a sheet, D-Bus activating it when it does not run, and waits for the sheet to end.
public enum SheetService {
    static let busName = ServiceProtocol.busName
    /// How long the service may take to start and take the request: D-Bus activation
    /// (dbus-daemon's own limit is 25 s) and GTK's start.
    public static let startTimeout: Double = 30

    /// mailto-route-desktop, the program of the sheets and the service, beside the running
    /// binary (links resolved), or `nil` when it is not there or cannot be run.
    public static var sheetProgram: String? {
        programBeside("mailto-route-desktop")
    }

    /// The program `name` of this project (mailto-route-desktop, mailto-route-books) beside
    /// the running binary (links resolved), or `nil` when it is not there or cannot be run.
    public static func programBeside(_ name: String) -> String? {
        let path = Files.directory(of: AppInfo.resolved("/proc/self/exe")) + "/" + name
        return access(path, X_OK) == 0 ? path : nil
    }

    /// The service's action (`app.own-outbox`) that makes it own the outbox while
    /// anything is queued: retry each message at its next attempt and when the network
    /// comes back, then quit.
    public static let ownOutboxAction = "own-outbox"

    /// Set by the service at its start: this process is the service.
    public static var isServiceProcess: Bool {
        get { serviceProcess.load(ordering: .acquiring) }
        set { serviceProcess.store(newValue, ordering: .releasing) }
    }

    private static let serviceProcess = Atomic(false)

    /// Asks the desktop service to own the outbox, D-Bus activating it when it does not
    /// run: `org.freedesktop.Application.ActivateAction("own-outbox", [<"">], {})`, within
    /// `seconds`. A run that left a message queued calls it, so that "it will be retried"
    /// holds with no command. `false` when nothing took it: no session bus, no service
    /// file (not registered), or a service that cannot start there.
    @discardableResult
    public static func ownOutbox(within seconds: Double = 10) -> Bool {
        // The service owns it already when it queued the message itself.
        guard !isServiceProcess else { return true }
        return activate(ownOutboxAction, parameter: "", within: seconds)
    }

    /// The service's action (`app.sign-in-again`, with an account's name) that tells the
    /// user, in a notification whose button opens GNOME Settings' Online Accounts, that the
    /// account must be signed in again. The service shows it, rather than the run that
    /// found out: the button must reach a program that is still there when it is pressed.
    public static let signInAgainAction = "sign-in-again"

    /// Asks the desktop service to tell that `account` must be signed in again
    /// (`signInAgainAction`), D-Bus activating it when it does not run, within `seconds`.
    /// `false` when nothing took it (no session bus, no service installed): the caller
    /// tells it another way.
    @discardableResult
    public static func askToSignIn(account: String, within seconds: Double = 10) -> Bool {
        activate(signInAgainAction, parameter: account, within: seconds)
    }

    /// `org.freedesktop.Application.ActivateAction(action, [<parameter>], {})` on the
    /// service, within `seconds`.
    private static func activate(_ action: String, parameter: String, within seconds: Double) -> Bool {
        guard let bus = try? BusConnection.session(within: min(seconds, 2)) else { return false }
        return bus.context.run { () -> Bool in
            let parameters = VariantBuilder.tuple([
                VariantBuilder.string(action), VariantBuilder.variants([VariantBuilder.string(parameter)]),
                VariantBuilder.dictionary([]),
            ])
            return (try? bus.call(busName, ServiceProtocol.objectPath, "org.freedesktop.Application", "ActivateAction", parameters,
                                  replyType: "()", seconds: seconds)) != nil
        }
    }

    /// Whether the service has its name on the session bus now:
    /// `org.freedesktop.DBus.NameHasOwner`, each step within `callTimeout` seconds.
    public static func isRunning(callTimeout: Double) throws(DesktopError) -> Bool {
        let bus = try BusConnection.session(within: callTimeout)
        let reply = try bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                                 VariantBuilder.tuple([VariantBuilder.string(busName)]), replyType: "(b)", seconds: callTimeout)
        return g_variant_get_boolean(reply.child(0).pointer) != 0
    }

    /// How long the service may take to start and put text on the clipboard: as for a sheet.
    public static let copyTimeout: Double = startTimeout

    /// Asks the desktop service to put `text` on the desktop's clipboard and hold it
    /// (`Copy`), D-Bus activating it when it does not run: the clipboard of X11 and of
    /// Wayland is owned by a process, and the one that asks ends at once. Returns once the
    /// clipboard holds it. Throws why not: no session bus, no service, a service with no
    /// display.
    public static func copy(_ text: String) throws(DesktopError) {
        let bus: BusConnection
        do throws(DesktopError) {
            bus = try BusConnection.session(within: 5)
        } catch {
            throw DesktopError(.permanent, tr("no desktop session to hold the clipboard (%@)", error.message))
        }
        try bus.context.run { () throws(DesktopError) in
            do throws(DesktopError) {
                _ = try bus.call(busName, ServiceProtocol.objectPath, ServiceProtocol.interface, "Copy",
                                 VariantBuilder.tuple([VariantBuilder.string(text)]), replyType: "()", seconds: copyTimeout)
            } catch {
                if ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.Spawn",
                    "org.freedesktop.DBus.Error.NameHasNoOwner"].contains(where: { error.message.contains($0) }) {
                    throw DesktopError(.permanent, tr("the desktop service (mailto-route-desktop) cannot be started to hold the clipboard"))
                }
                // The service's own reason, without GDBus's wrapping of the remote error.
                let remote = "GDBus.Error:\(ServiceProtocol.copyError): "
                guard let range = error.message.firstRange(of: remote) else { throw error }
                throw DesktopError(.permanent, String(error.message[range.upperBound...]))
            }
        }
    }

    /// Asks the service for `request`'s sheet and waits until it has ended: what came of
    /// it. `nil` when there is no service to ask: no session bus, no service file
    /// installed, or a service that could not start; the caller then starts the sheet
    /// itself. Throws when the service took the request and went away before answering.
    ///
    /// `Compose` has a deadline (`startTimeout`); the wait after it has none, since it is
    /// the user's writing time, but it ends when the service leaves the bus
    /// (`NameOwnerChanged`), and when the bus itself goes away, so a crashed service never
    /// holds the click.
    public static func compose(_ request: ServiceProtocol.Request) throws(DesktopError) -> ServiceProtocol.Answer? {
        guard let bus = try? BusConnection.session(within: 5) else { return nil }
        let watch = ServiceWatch()
        return try bus.context.run { () throws(DesktopError) -> ServiceProtocol.Answer? in
            let finished = bus.subscribe(sender: nil, interface: ServiceProtocol.interface, member: "Finished",
                                         path: ServiceProtocol.objectPath) { watch.take($0, $1) }
            let owner = bus.subscribe(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
                                      member: "NameOwnerChanged", path: "/org/freedesktop/DBus", arg0: busName) {
                watch.take($0, $1)
            }
            defer {
                bus.unsubscribe(finished)
                bus.unsubscribe(owner)
            }
            let id: String
            do throws(DesktopError) {
                let reply = try bus.call(busName, ServiceProtocol.objectPath, ServiceProtocol.interface, "Compose",
                                         request.parameters, replyType: "(s)", seconds: startTimeout)
                id = reply.child(0).string ?? ""
            } catch {
                // Not installed, or started and gone at once.
                if ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.Spawn",
                    "org.freedesktop.DBus.Error.NameHasNoOwner"].contains(where: { error.message.contains($0) }) {
                    return nil
                }
                throw error
            }
            watch.request = id
            _ = bus.context.iterate(until: { watch.outcome != nil || watch.serviceLeft || bus.isClosed }, seconds: 1e9)
            if let outcome = watch.outcome { return outcome }
            let gone = bus.isClosed ? tr("the session bus went away before the sheet ended")
                : tr("the desktop service ended before the sheet did")
            throw DesktopError(.transient, tr("%@ (what you wrote is kept: it is offered again, or saved as a draft, "
                + "the next time a sheet opens)", gone))
        }
    }
}

/// What the subscriptions of `SheetService.compose` have seen: the `Finished` of each
/// request (by id: the signal may be dispatched before `Compose`'s reply is read), or the
/// service leaving the bus.
private final class ServiceWatch {
    var request: String?
    var finished: [String: ServiceProtocol.Answer] = [:]
    var outcome: ServiceProtocol.Answer? {
        request.flatMap { finished[$0] }
    }
    var serviceLeft = false

    func take(_ member: String, _ values: Variant) {
        switch member {
        case "Finished":
            guard let (request, outcome) = ServiceProtocol.Answer.read(values) else { return }
            finished[request] = outcome
        case "NameOwnerChanged" where values.isOfType("(sss)"):
            if values.child(2).string == "" { serviceLeft = true }
        default:
            break
        }
    }
}
