internal import CGIO

/// One SRV record (RFC 2782), as GIO's resolver gives it: where a service of a domain is.
public struct ServiceRecord: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var priority: Int
    public var weight: Int

    public init(host: String, port: Int, priority: Int = 0, weight: Int = 0) {
        self.host = host
        self.port = port
        self.priority = priority
        self.weight = weight
    }
}

/// DNS SRV records through GIO's resolver (`GResolver`), the desktop's own: on glibc it
/// runs `res_query` in a worker thread, so it follows `/etc/resolv.conf` (and, in the
/// tests, resolv_wrapper's).
public enum ServiceRecords {
    /// Seconds a lookup may take: a resolver that does not answer costs this, never a hang.
    public static let timeout: Double = 5

    /// The records of `_SERVICE._tcp.DOMAIN`, in the order to try them (GIO sorts them by
    /// priority, and by weight within one, as RFC 2782 says); empty when the name has none,
    /// or only the "." target that says there is no such service. Throws (kind
    /// `transient`) when the resolver failed or did not answer within `timeout` seconds.
    ///
    /// Wraps `g_resolver_get_default` (transfer full), `g_resolver_lookup_service_async` and
    /// `_finish` (a `GList` of `GSrvTarget`, transfer full: each freed with
    /// `g_srv_target_free`, then the list).
    public static func lookup(service: String, domain: String, timeout: Double = timeout) throws(DesktopError) -> [ServiceRecord] {
        let gio = try GIOLibrary.load()
        guard let resolver = gio.pointee.g_resolver_get_default() else {
            throw DesktopError(.transient, "GIO has no resolver")
        }
        defer { gio.pointee.g_object_unref(UnsafeMutableRawPointer(resolver)) }
        let context = MainContext()
        return try context.run { () throws(DesktopError) -> [ServiceRecord] in
            let cancellable = Cancellable(gio: gio)
            var outcome: Result<[ServiceRecord], DesktopError>?
            let call = AsyncCall { _, result in
                var error: UnsafeMutablePointer<GError>?
                let list = gio.pointee.g_resolver_lookup_service_finish(resolver, result, &error)
                defer {
                    var node = list
                    while let current = node {
                        gio.pointee.g_srv_target_free(OpaquePointer(current.pointee.data))
                        node = current.pointee.next
                    }
                    g_list_free(list)
                }
                if let error {
                    // NOT_FOUND: the name has no such records. The quark by its name (GLib's
                    // g_quark_from_static_string), since g_resolver_error_quark is GIO's.
                    if error.pointee.domain == g_quark_from_static_string("g-resolver-error-quark"), error.pointee.code == G_RESOLVER_ERROR_NOT_FOUND.rawValue {
                        g_error_free(error)
                        outcome = .success([])
                    } else {
                        outcome = .failure(takeError(error, .transient, "cannot look up _\(service)._tcp.\(domain)"))
                    }
                    return
                }
                var records: [ServiceRecord] = []
                var node = list
                while let current = node {
                    let target = OpaquePointer(current.pointee.data)
                    if let name = borrowString(gio.pointee.g_srv_target_get_hostname(target)) {
                        records.append(ServiceRecord(
                            host: name.hasSuffix(".") ? String(name.dropLast()) : name,
                            port: Int(gio.pointee.g_srv_target_get_port(target)),
                            priority: Int(gio.pointee.g_srv_target_get_priority(target)),
                            weight: Int(gio.pointee.g_srv_target_get_weight(target))))
                    }
                    node = current.pointee.next
                }
                // RFC 2782: a lone "." target means the service is decidedly not available.
                outcome = .success(records.filter { !$0.host.isEmpty && $0.host != "." && $0.port > 0 })
            }
            gio.pointee.g_resolver_lookup_service_async(resolver, service, "tcp", domain, cancellable.pointer,
                                                        AsyncCall.ready, call.userData)
            guard context.wait(for: call, cancelling: cancellable, seconds: timeout), let outcome else {
                throw DesktopError(.transient, "no answer for _\(service)._tcp.\(domain) within \(timeout.secondsText) s")
            }
            return try outcome.get()
        }
    }
}
