internal import CGTK
public import DesktopIntegration
import MailtoCore

/// What the desktop service is asked for on the session bus, answered by the program
/// that serves (mailto-route-desktop), on the GTK main thread.
public protocol ServiceDelegate: AnyObject {
    /// `org.freedesktop.Application.Open`: GLib launched the D-Bus activatable desktop
    /// entry with these URIs (a notification's default action, or the entry as a handler).
    func open(_ uris: [String])
    /// mailto-route's own `Compose` (`ServiceProtocol`): a sheet for the command line's
    /// link or `compose`; `answer` once it has ended.
    func compose(_ request: ServiceProtocol.Request, answer: @escaping @Sendable (ServiceProtocol.Answer) -> Void)
    /// The Email portal's `ComposeEmail`; `respond` with its response code once the user
    /// has chosen. The handle withdraws the request (`Request.Close`).
    func composeEmail(_ request: PortalEmailRequest, respond: @escaping @Sendable (UInt32) -> Void) -> (any SheetWindow)?
    /// A notification's button: `retry-outbox` or `open-draft`, with the id it names.
    func activate(_ action: String, parameter: String)
}

/// The names the application takes.
public enum ServiceNames {
    public static let applicationID = ServiceProtocol.busName
}

/// The service's objects on the session bus: mailto-route's own interface, the Email
/// portal backend and its request objects, on GIO's shared session connection, which
/// `g_application_register` then uses too. They are exported before the application
/// takes its name, so that the call that D-Bus-activated the service finds them.
/// Touched on the main thread only: the `@Sendable` answers that capture it hop to the
/// main loop (`Background.soon`) before they do, hence `@unchecked`.
final class ServiceBus: @unchecked Sendable {
    private let connection: OpaquePointer
    /// The service's own interface, as its description file says it, and the portal's.
    private let node: UnsafeMutablePointer<GDBusNodeInfo>
    private let portalNode: UnsafeMutablePointer<GDBusNodeInfo>
    private var registrations: [guint] = []
    private var portalName: guint = 0
    /// The portal requests still open, by handle: their `Request` object and sheet.
    private var requests: [String: (registration: guint, handle: (any SheetWindow)?)] = [:]
    private var nextRequest = 0
    unowned let application: SheetApplication

    /// Wraps `g_bus_get_sync` (transfer full) and `g_dbus_node_info_new_for_xml`: the
    /// service's interface from its description file (`ServiceProtocol.interfaceFile`), read
    /// at each start, so that what is exported is what is installed for others to read.
    init(application: SheetApplication) throws(ServiceError) {
        self.application = application
        let description: String
        do {
            description = try ServiceProtocol.interfaceDescription()
        } catch {
            throw ServiceError(error.message)
        }
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(description, &error) else {
            throw ServiceError(takingMessage: error, tr("the desktop service's interface description does not read"))
        }
        guard let portalNode = g_dbus_node_info_new_for_xml(ServiceProtocol.portalIntrospection, &error) else {
            preconditionFailure("the portal's introspection XML does not parse: \(ServiceError(takingMessage: error, ""))")
        }
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            g_dbus_node_info_unref(node)
            g_dbus_node_info_unref(portalNode)
            throw ServiceError(takingMessage: error, tr("cannot connect to the session bus"))
        }
        self.connection = connection
        self.node = node
        self.portalNode = portalNode
    }

    deinit {
        for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        for request in requests.values { g_dbus_connection_unregister_object(connection, request.registration) }
        if portalName != 0 { g_bus_unown_name(portalName) }
        g_dbus_node_info_unref(node)
        g_dbus_node_info_unref(portalNode)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    private var data: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Exports mailto-route's interface on the application's path and the portal backend
    /// on the portal's, then asks for the portal's bus name: wraps
    /// `g_dbus_connection_register_object` and `g_bus_own_name_on_connection`.
    func export() throws(ServiceError) {
        try registrations.append(register(ServiceProtocol.objectPath, interface: ServiceProtocol.interface))
        try registrations.append(register(ServiceProtocol.portalObjectPath, interface: ServiceProtocol.portalInterface))
        portalName = g_bus_own_name_on_connection(connection, ServiceProtocol.portalBusName, G_BUS_NAME_OWNER_FLAGS_NONE,
                                                  nil, nil, nil, nil)
    }

    private func register(_ path: String, interface: String) throws(ServiceError) -> guint {
        guard let info = g_dbus_node_info_lookup_interface(node, interface) ?? g_dbus_node_info_lookup_interface(portalNode, interface)
        else {
            throw ServiceError(tr("the desktop service's interface description has no %@", interface))
        }
        var error: UnsafeMutablePointer<GError>?
        let id = g_dbus_connection_register_object(connection, path, info, serviceVTable, data, nil, &error)
        guard id != 0 else { throw ServiceError(takingMessage: error, tr("cannot export %@ at %@", interface, path)) }
        return id
    }

    // MARK: - Calls

    fileprivate func call(_ method: String, interface: String, path: String, sender: String,
                          parameters: OpaquePointer, invocation: OpaquePointer) {
        let reply = PendingReply(invocation)
        guard let delegate = application.delegate else {
            reply.fail("the service is not ready")
            return
        }
        switch (interface, method) {
        case (ServiceProtocol.interface, "Compose"):
            guard let request = ServiceProtocol.Request(parameters: parameters) else {
                return reply.fail("Compose takes (sa{sv}) with a known source")
            }
            nextRequest += 1
            let id = "\(nextRequest)"
            reply.succeed(serviceReply(id))
            application.hold()
            delegate.compose(request) { [self] outcome in
                Background.soon {
                    self.emitFinished(id, outcome, to: sender)
                    self.application.release()
                }
            }
        case (ServiceProtocol.portalInterface, "ComposeEmail"):
            composeEmail(parameters, reply: reply)
        case (ServiceProtocol.requestInterface, "Close"):
            reply.succeed(nil)
            requests[path]?.handle?.withdraw()
        default:
            reply.fail("no method \(interface).\(method)")
        }
    }

    private func composeEmail(_ parameters: OpaquePointer, reply: PendingReply) {
        guard let delegate = application.delegate else { return reply.fail("the service is not ready") }
        guard let request = PortalEmailRequest(parameters: parameters) else {
            return reply.fail("ComposeEmail takes (ossa{sv})")
        }
        let handle = request.handle
        // The Request object first, so that a Close that comes at once finds it.
        let registration = (try? register(handle, interface: ServiceProtocol.requestInterface)) ?? 0
        requests[handle] = (registration, nil)
        application.hold()
        let sheet = delegate.composeEmail(request) { [self] response in
            Background.soon {
                reply.succeed(PortalEmailRequest.reply(response))
                if let request = self.requests.removeValue(forKey: handle), request.registration != 0 {
                    g_dbus_connection_unregister_object(self.connection, request.registration)
                }
                self.application.release()
            }
        }
        if requests[handle] != nil { requests[handle]?.handle = sheet }
    }

    /// Wraps `g_dbus_connection_emit_signal`, to the caller only: what it prints is its own.
    private func emitFinished(_ request: String, _ outcome: ServiceProtocol.Answer, to destination: String) {
        g_dbus_connection_emit_signal(
            connection, destination, ServiceProtocol.objectPath, ServiceProtocol.interface, "Finished",
            outcome.signal(request: request), nil)
        g_dbus_connection_flush_sync(connection, nil, nil)
    }
}

/// A method call's invocation (transfer full from GDBus), answered exactly once.
private final class PendingReply: @unchecked Sendable {
    // Answered on the main thread only; `@unchecked` because the callbacks that capture
    // it are `@Sendable` and hop to the main loop before they touch it.
    private var invocation: OpaquePointer?

    init(_ invocation: OpaquePointer) {
        self.invocation = invocation
    }

    /// Wraps `g_dbus_method_invocation_return_value` (consumes a floating `value`).
    func succeed(_ value: OpaquePointer?) {
        guard let invocation else { return }
        self.invocation = nil
        g_dbus_method_invocation_return_value(invocation, value)
    }

    /// Wraps `g_dbus_method_invocation_return_dbus_error` with org.freedesktop.DBus.Error.Failed.
    func fail(_ message: String) {
        guard let invocation else { return }
        self.invocation = nil
        g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.Failed", message)
    }
}

/// The error of the service's D-Bus side: GLib's message.
public struct ServiceError: Error, CustomStringConvertible {
    public let description: String

    init(_ message: String) {
        description = message
    }

    init(takingMessage error: UnsafeMutablePointer<GError>?, _ context: String) {
        let message = error?.pointee.message.map { String(cString: $0) } ?? tr("unknown error")
        if let error { g_error_free(error) }
        description = context.isEmpty ? message : "\(context): \(message)"
    }
}

// MARK: - C glue

/// GDBus's method-call function for every object of the service.
private func onMethodCall(
    _ connection: OpaquePointer?, _ sender: UnsafePointer<gchar>?, _ path: UnsafePointer<gchar>?,
    _ interface: UnsafePointer<gchar>?, _ method: UnsafePointer<gchar>?, _ parameters: OpaquePointer?,
    _ invocation: OpaquePointer?, _ data: gpointer?
) {
    guard let data, let invocation, let parameters, let method, let interface, let path else { return }
    let bus = Unmanaged<ServiceBus>.fromOpaque(data).takeUnretainedValue()
    bus.call(String(cString: method), interface: String(cString: interface), path: String(cString: path),
             sender: sender.map { String(cString: $0) } ?? "", parameters: parameters, invocation: invocation)
}

/// The one vtable of the service's objects, for the life of the process: written once,
/// before any object is exported, and only read by GDBus after (hence `unsafe`).
nonisolated(unsafe) private let serviceVTable: UnsafePointer<GDBusInterfaceVTable> = {
    let table = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    table.initialize(to: GDBusInterfaceVTable())
    table.pointee.method_call = onMethodCall
    return UnsafePointer(table)
}()

/// A GLib string (transfer full) as a Swift one, freed.
func takeString(_ text: UnsafeMutablePointer<gchar>?) -> String? {
    guard let text else { return nil }
    defer { g_free(text) }
    return String(cString: text)
}
