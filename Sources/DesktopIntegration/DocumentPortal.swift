internal import CGIO
#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// The Documents portal (`org.freedesktop.portal.Documents` on the session bus), through
/// which a file on the host is made visible inside a Flatpak sandbox: a Flatpak mail program
/// sees only its own files and the portal's mount point (`/run/user/UID/doc`), so an
/// attachment path on its command line must be one under that mount point.
public enum DocumentPortal {
    static let service = "org.freedesktop.portal.Documents"
    static let path = "/org/freedesktop/portal/documents"
    static let interface = "org.freedesktop.portal.Documents"
    /// `XDP_ADD_FLAGS_AS_NEEDED_BY_APP`: a file the app can already see is not exported
    /// again (its document id comes back empty).
    static let asNeededByApp: UInt32 = 1 << 2

    /// The paths under which the app `appID` sees `paths` (absolute), in order, as GLib
    /// exports files for an `X-Flatpak` program (`g_document_portal_add_documents` in
    /// gio/gdocumentportal.c): `GetMountPoint`, then one `AddFull` with an `O_PATH`
    /// descriptor of each file, `AS_NEEDED_BY_APP`, the app id and the permissions, which
    /// grants them to the app in the same call. Only `read`, where GLib asks for `write`
    /// too: a mail program only reads what it attaches. Each step within `callTimeout`
    /// seconds; throws when the portal is not there or refuses.
    public static func export(_ paths: [String], for appID: String, callTimeout: Double = 2) throws(DesktopError) -> [String] {
        let bus = try BusConnection.session(within: callTimeout)
        let mount = try bus.call(service, path, interface, "GetMountPoint", nil, replyType: "(ay)", seconds: callTimeout)
        guard let mountPoint = mount.child(0).bytestring, mountPoint.hasPrefix("/") else {
            throw DesktopError(.configuration, tr("the Documents portal gave no mount point"))
        }
        let descriptors = try Descriptors(paths)
        let parameters = VariantBuilder.tuple([
            VariantBuilder.handles(descriptors.count), VariantBuilder.uint32(asNeededByApp), VariantBuilder.string(appID),
            VariantBuilder.strings(["read"]),
        ])
        let reply = try bus.call(service, path, interface, "AddFull", parameters, replyType: "(asa{sv})",
                                 descriptors: descriptors, seconds: callTimeout)
        let ids = reply.child(0).strings
        guard ids.count == paths.count else {
            throw DesktopError(.permanent, tr("the Documents portal exported %@ of %@ files", ids.count, paths.count))
        }
        return zip(paths, ids).map { path, id in
            // An empty id: the app sees the file already, under its own path.
            id.isEmpty ? path : mountPoint + "/" + id + "/" + (path.split(separator: "/").last.map(String.init) ?? path)
        }
    }
}

/// The one Swift owner of a `GUnixFDList` (`g_unix_fd_list_new`, transfer full), holding a
/// duplicate of an `O_PATH` descriptor of each file (`g_unix_fd_list_append` duplicates; the
/// originals are closed at once). Unref'd, closing the duplicates, in `deinit`.
final class Descriptors {
    let pointer: UnsafeMutablePointer<GUnixFDList>
    let count: Int
    private let gio: UnsafePointer<mr_gio_api>

    init(_ paths: [String]) throws(DesktopError) {
        gio = try GIOLibrary.load()
        guard let made = gio.pointee.g_unix_fd_list_new() else { throw DesktopError(.permanent, tr("cannot make a GUnixFDList")) }
        pointer = made
        count = paths.count
        for path in paths {
            let descriptor = mr_open_path(path)
            guard descriptor >= 0 else { throw DesktopError(.permanent, tr("cannot open %@: %@", path, systemErrorText(errno))) }
            var error: UnsafeMutablePointer<GError>?
            let index = gio.pointee.g_unix_fd_list_append(pointer, descriptor, &error)
            close(descriptor)
            guard index >= 0 else { throw takeError(error, .permanent, tr("cannot pass %@ to the Documents portal", path)) }
        }
    }

    deinit {
        gio.pointee.g_object_unref(UnsafeMutableRawPointer(pointer))
    }
}

extension BusConnection {
    /// `call`, with `descriptors` passed along: wraps
    /// `g_dbus_connection_call_with_unix_fd_list_sync` (the fd list is only lent; no
    /// descriptors are asked back). The reply is transfer full.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String, _ parameters: OpaquePointer?,
        replyType: String, descriptors: Descriptors, seconds: Double
    ) throws(DesktopError) -> Variant {
        var error: UnsafeMutablePointer<GError>?
        let reply = withExtendedLifetime(VariantType(replyType)) { type in
            gio.pointee.g_dbus_connection_call_with_unix_fd_list_sync(
                pointer, destination, path, interface, method, parameters, type.pointer, G_DBUS_CALL_FLAGS_NONE,
                Int32(clamping: Int(seconds * 1000)), descriptors.pointer, nil, nil, &error)
        }
        guard let reply else { throw takeError(error, .transient, "\(interface).\(method)") }
        return Variant(adopting: reply)
    }
}

extension Variant {
    /// Wraps `g_variant_get_bytestring` (transfer none), for an `ay` ending in a NUL.
    var bytestring: String? { isOfType("ay") ? String(cString: g_variant_get_bytestring(pointer)) : nil }
}

extension VariantBuilder {
    /// An `ah` of the handles 0..<count (indexes into the call's fd list): wraps
    /// `g_variant_new_array` of `g_variant_new_handle`s.
    static func handles(_ count: Int) -> OpaquePointer {
        var items: [OpaquePointer?] = (0..<count).map { g_variant_new_handle(Int32($0)) }
        return withExtendedLifetime(VariantType("h")) { g_variant_new_array($0.pointer, &items, gsize(items.count)) }
    }
}
