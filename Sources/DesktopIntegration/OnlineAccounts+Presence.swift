internal import CGIO

extension OnlineAccounts {
    /// Whether GNOME Online Accounts is on the session bus: goa-daemon holds its name now,
    /// or the bus can start it (`NameHasOwner`, then `ListActivatableNames`), each call
    /// within `seconds`. What the sheet's "Use GNOME Online Accounts" needs to be offered;
    /// `false` without a bus.
    public static func isOnBus(within seconds: Double = 2) -> Bool {
        guard let bus = try? BusConnection.session(within: seconds) else { return false }
        return bus.context.run { () -> Bool in
            if let reply = try? bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                                         VariantBuilder.tuple([VariantBuilder.string(busName)]), replyType: "(b)", seconds: seconds),
               g_variant_get_boolean(reply.child(0).pointer) != 0 {
                return true
            }
            guard let names = try? bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                            "ListActivatableNames", nil, replyType: "(as)", seconds: seconds) else { return false }
            return names.child(0).strings.contains(busName)
        }
    }
}
