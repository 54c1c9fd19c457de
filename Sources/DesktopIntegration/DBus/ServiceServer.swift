internal import CGIO
import MailtoCore

/// What the desktop service is asked on the session bus, answered by the program that serves
/// (mailto-route-desktop's `DesktopService`), on the main loop.
public protocol ServiceRequests: AnyObject {
    /// mailto-route's own `Compose` (`ServiceProtocol`): a sheet for the command line's link
    /// or `compose`; `answer` once it has ended.
    func compose(_ request: ServiceProtocol.Request, answer: @escaping @Sendable (ServiceProtocol.Answer) -> Void)
    /// The Email portal's `ComposeEmail`; `respond` with its response code once the person
    /// has chosen. What it returns withdraws the request (`Request.Close`).
    func composeEmail(_ request: PortalEmailRequest, respond: @escaping @Sendable (UInt32) -> Void) -> (any WithdrawableRequest)?
    /// mailto-route's own `Copy`: `text` on the desktop's clipboard, held by this program
    /// until another takes the clipboard. Throws why not (no display).
    func copy(_ text: String) throws(DesktopError)
    /// Work for a caller began or ended: the program stays while any goes on.
    func hold()
    func release()
}

/// A request a caller may withdraw before it is answered (the portal's `Request.Close`).
public protocol WithdrawableRequest: AnyObject {
    func withdraw()
}

/// The service's objects on the session bus, the server half of D-Bus beside the client's
/// (`BusConnection`, `Variant`): mailto-route's own interface (its description file,
/// `ServiceProtocol.interfaceDescription`, read at each start), the Email portal backend and
/// its request objects, on GIO's shared session connection, which `g_application_register`
/// then uses too. Exported before the application takes its name, so that the call that
/// D-Bus-activated the service finds them. Touched on the main thread only: the `@Sendable`
/// answers that capture it go back to the main loop (`soon`) before they do, hence
/// `@unchecked`.
///
/// The objects are registered on a context of their own, which a thread of their own runs
/// (`BusThread`): GDBus answers what needs nothing of ours there (the portal's
/// `Properties.GetAll` when it makes its proxy of the backend), and every method call is
/// handed on to the main loop. The main thread may be blocked when such a call comes: when
/// xdg-desktop-portal starts the service as its Email backend, the application's start-up
/// (GTK's, in `g_application_register`) makes a proxy of the portal itself, which waits
/// until the portal has its name, and the portal takes its name only once it has its
/// backends' properties. On the main context, the two waited on each other for D-Bus's 25
/// s timeout, at every start of the portal.
public final class ServiceServer: @unchecked Sendable {
    private let gio: UnsafePointer<mr_gio_api>
    private let connection: OpaquePointer
    private let busThread = BusThread()
    /// The service's own interface, as its description file says it, and the portal's.
    private let node: UnsafeMutablePointer<GDBusNodeInfo>
    private let portalNode: UnsafeMutablePointer<GDBusNodeInfo>
    private var registrations: [guint] = []
    private var portalName: guint = 0
    /// The portal requests still open, by handle: their `Request` object and what withdraws it.
    private var requests: [String: (registration: guint, handle: (any WithdrawableRequest)?)] = [:]
    private var nextRequest = 0
    private weak var delegate: (any ServiceRequests)?

    /// Wraps `g_bus_get_sync` (GIO's shared session connection, transfer full) and
    /// `g_dbus_node_info_new_for_xml`.
    public init(answering delegate: any ServiceRequests) throws(DesktopError) {
        gio = try GIOLibrary.load()
        let description = try ServiceProtocol.interfaceDescription()
        var error: UnsafeMutablePointer<GError>?
        guard let node = gio.pointee.g_dbus_node_info_new_for_xml(description, &error) else {
            throw takeError(error, .configuration, tr("the desktop service's interface description does not read"))
        }
        guard let portalNode = gio.pointee.g_dbus_node_info_new_for_xml(ServiceProtocol.portalIntrospection, &error) else {
            preconditionFailure("the portal's introspection XML does not parse: \(takeErrorMessage(error))")
        }
        guard let connection = gio.pointee.g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            gio.pointee.g_dbus_node_info_unref(node)
            gio.pointee.g_dbus_node_info_unref(portalNode)
            throw takeError(error, .transient, tr("cannot connect to the session bus"))
        }
        self.connection = connection
        self.node = node
        self.portalNode = portalNode
        self.delegate = delegate
    }

    deinit {
        for id in registrations { _ = gio.pointee.g_dbus_connection_unregister_object(connection, id) }
        for request in requests.values { _ = gio.pointee.g_dbus_connection_unregister_object(connection, request.registration) }
        if portalName != 0 { gio.pointee.g_bus_unown_name(portalName) }
        gio.pointee.g_dbus_node_info_unref(node)
        gio.pointee.g_dbus_node_info_unref(portalNode)
        gio.pointee.g_object_unref(UnsafeMutableRawPointer(connection))
    }

    private var data: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Exports mailto-route's interface on the application's path and the portal backend
    /// on the portal's, on the bus thread's context, starts that thread, then asks for the
    /// portal's bus name: wraps `g_dbus_connection_register_object` and
    /// `g_bus_own_name_on_connection`.
    public func export() throws(DesktopError) {
        try busThread.context.run { () throws(DesktopError) in
            try registrations.append(register(ServiceProtocol.objectPath, interface: ServiceProtocol.interface))
            try registrations.append(register(ServiceProtocol.portalObjectPath, interface: ServiceProtocol.portalInterface))
        }
        busThread.start()
        portalName = gio.pointee.g_bus_own_name_on_connection(connection, ServiceProtocol.portalBusName,
                                                              G_BUS_NAME_OWNER_FLAGS_NONE, nil, nil, nil, nil)
    }

    /// Registers the object at `path` on the thread-default context: the bus thread's for
    /// the two the service starts with, the main loop's for a portal request's, which is
    /// made there and closed only while the main loop runs.
    private func register(_ path: String, interface: String) throws(DesktopError) -> guint {
        guard let info = gio.pointee.g_dbus_node_info_lookup_interface(node, interface)
                ?? gio.pointee.g_dbus_node_info_lookup_interface(portalNode, interface) else {
            throw DesktopError(.configuration, tr("the desktop service's interface description has no %@", interface))
        }
        var error: UnsafeMutablePointer<GError>?
        let id = gio.pointee.g_dbus_connection_register_object(connection, path, info, serviceVTable, data, nil, &error)
        guard id != 0 else { throw takeError(error, .permanent, tr("cannot export %@ at %@", interface, path)) }
        return id
    }

    // MARK: - Calls

    fileprivate func call(_ method: String, interface: String, path: String, sender: String,
                          parameters: OpaquePointer, invocation: OpaquePointer) {
        let reply = PendingReply(invocation, gio: gio)
        guard let delegate else { return reply.fail("the service is not ready") }
        switch (interface, method) {
        case (ServiceProtocol.interface, "Compose"):
            guard let request = ServiceProtocol.Request(parameters: parameters) else {
                return reply.fail("Compose takes (sa{sv}) with a known source")
            }
            nextRequest += 1
            let id = "\(nextRequest)"
            reply.succeed(serviceReply(id))
            delegate.hold()
            delegate.compose(request) { [self] outcome in
                soon {
                    self.emitFinished(id, outcome, to: sender)
                    self.delegate?.release()
                }
            }
        case (ServiceProtocol.interface, "Copy"):
            let values = Variant(borrowing: parameters)
            guard values.isOfType("(s)"), let text = values.child(0).string else { return reply.fail("Copy takes (s)") }
            do throws(DesktopError) {
                try delegate.copy(text)
                reply.succeed(nil)
            } catch {
                reply.fail(error.message, name: ServiceProtocol.copyError)
            }
        case (ServiceProtocol.portalInterface, "ComposeEmail"):
            composeEmail(parameters, reply: reply, delegate: delegate)
        case (ServiceProtocol.requestInterface, "Close"):
            reply.succeed(nil)
            requests[path]?.handle?.withdraw()
        default:
            reply.fail("no method \(interface).\(method)")
        }
    }

    private func composeEmail(_ parameters: OpaquePointer, reply: PendingReply, delegate: any ServiceRequests) {
        guard let request = PortalEmailRequest(parameters: parameters) else {
            return reply.fail("ComposeEmail takes (ossa{sv})")
        }
        let handle = request.handle
        // The Request object first, so that a Close that comes at once finds it.
        let registration = (try? register(handle, interface: ServiceProtocol.requestInterface)) ?? 0
        requests[handle] = (registration, nil)
        delegate.hold()
        let withdrawable = delegate.composeEmail(request) { [self] response in
            soon {
                reply.succeed(PortalEmailRequest.reply(response))
                if let request = self.requests.removeValue(forKey: handle), request.registration != 0 {
                    _ = self.gio.pointee.g_dbus_connection_unregister_object(self.connection, request.registration)
                }
                self.delegate?.release()
            }
        }
        if requests[handle] != nil { requests[handle]?.handle = withdrawable }
    }

    /// Wraps `g_dbus_connection_emit_signal`, to the caller only: what it prints is its own.
    private func emitFinished(_ request: String, _ outcome: ServiceProtocol.Answer, to destination: String) {
        _ = gio.pointee.g_dbus_connection_emit_signal(
            connection, destination, ServiceProtocol.objectPath, ServiceProtocol.interface, "Finished",
            outcome.signal(request: request), nil)
        _ = gio.pointee.g_dbus_connection_flush_sync(connection, nil, nil)
    }
}

/// A method call's invocation (transfer full from GDBus), answered exactly once.
private final class PendingReply: @unchecked Sendable {
    // Answered on the main thread only; `@unchecked` because the callbacks that capture
    // it are `@Sendable` and go back to the main loop before they touch it.
    private var invocation: OpaquePointer?
    private let gio: UnsafePointer<mr_gio_api>

    init(_ invocation: OpaquePointer, gio: UnsafePointer<mr_gio_api>) {
        self.invocation = invocation
        self.gio = gio
    }

    /// Wraps `g_dbus_method_invocation_return_value` (consumes a floating `value`).
    func succeed(_ value: OpaquePointer?) {
        guard let invocation else { return }
        self.invocation = nil
        gio.pointee.g_dbus_method_invocation_return_value(invocation, value)
    }

    /// Wraps `g_dbus_method_invocation_return_dbus_error`, org.freedesktop.DBus.Error.Failed
    /// unless `name` says otherwise.
    func fail(_ message: String, name: String = "org.freedesktop.DBus.Error.Failed") {
        guard let invocation else { return }
        self.invocation = nil
        gio.pointee.g_dbus_method_invocation_return_dbus_error(invocation, name, message)
    }
}

/// Runs `body` on the main loop once, soon (an idle source of GLib's default context): an
/// answer given while its request is still being set up runs after the setting up.
private func soon(_ body: @escaping () -> Void) {
    _ = g_idle_add(onSoon, Unmanaged.passRetained(IdleWork(body)).toOpaque())
}

private final class IdleWork {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

private func onSoon(_ data: gpointer?) -> gboolean {
    guard let data else { return 0 }
    Unmanaged<IdleWork>.fromOpaque(data).takeRetainedValue().body()
    return 0
}

// MARK: - C glue

/// GDBus's method-call function for every object of the service, on the context it was
/// registered on (the bus thread's, or the main loop's): the call goes on to the main loop, with the parameters and invocation it holds (GDBus's
/// references last until the function returns; an invocation may be answered from any thread).
private func onMethodCall(
    _ connection: OpaquePointer?, _ sender: UnsafePointer<gchar>?, _ path: UnsafePointer<gchar>?,
    _ interface: UnsafePointer<gchar>?, _ method: UnsafePointer<gchar>?, _ parameters: OpaquePointer?,
    _ invocation: OpaquePointer?, _ data: gpointer?
) {
    guard let data, let invocation, let parameters, let method, let interface, let path else { return }
    let server = Unmanaged<ServiceServer>.fromOpaque(data).takeUnretainedValue()
    let call = (method: String(cString: method), interface: String(cString: interface), path: String(cString: path),
                sender: sender.map { String(cString: $0) } ?? "")
    _ = g_variant_ref(parameters)
    soon {
        server.call(call.method, interface: call.interface, path: call.path, sender: call.sender,
                    parameters: parameters, invocation: invocation)
        g_variant_unref(parameters)
    }
}

/// The one vtable of the service's objects, for the life of the process: written once,
/// before any object is exported, and only read by GDBus after (hence `unsafe`).
nonisolated(unsafe) private let serviceVTable: UnsafePointer<GDBusInterfaceVTable> = {
    let table = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    table.initialize(to: GDBusInterfaceVTable())
    table.pointee.method_call = onMethodCall
    return UnsafePointer(table)
}()
