/// The XDG desktop portal's Email interface (`org.freedesktop.portal.Email`), through which
/// a sandboxed program hands a message to the user's mail program. `--check` says whether
/// it is there.
public enum EmailPortal {
    static let service = "org.freedesktop.portal.Desktop"
    static let path = "/org/freedesktop/portal/desktop"
    static let interface = "org.freedesktop.portal.Email"

    /// The interface's `version` property (`org.freedesktop.DBus.Properties.Get`), read on
    /// a private session-bus connection within `callTimeout` seconds per step; `nil` when
    /// no portal with that interface answers. Throws when there is no session bus, or it
    /// did not answer in time: then nobody knows.
    public static func version(callTimeout: Double = 1) throws(DesktopError) -> UInt32? {
        let bus = try BusConnection.session(within: callTimeout)
        let parameters = VariantBuilder.tuple([VariantBuilder.string(interface), VariantBuilder.string("version")])
        do {
            let reply = try bus.call(service, path, "org.freedesktop.DBus.Properties", "Get", parameters,
                                     replyType: "(v)", seconds: callTimeout)
            return reply.child(0).unboxed?.uint32
        } catch {
            // The bus's own answers that say "not here": no portal service, or one without
            // the Email interface.
            let absent = ["ServiceUnknown", "NameHasNoOwner", "UnknownInterface", "UnknownProperty", "UnknownObject",
                          "InvalidArgs"]
            if absent.contains(where: { error.message.contains("org.freedesktop.DBus.Error.\($0)") }) { return nil }
            throw error
        }
    }
}
