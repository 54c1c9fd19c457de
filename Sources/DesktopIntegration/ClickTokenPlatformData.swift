/// The activation token in the platform data of an `org.freedesktop.Application` call
/// (`Open`, `Activate`, `ActivateAction`), where a launcher that starts a D-Bus activatable
/// entry puts the click's token. GLib 2.74 sends it as `desktop-startup-id` alone; GLib 2.76
/// and later send `activation-token` beside it (gdesktopappinfo.c,
/// g_desktop_app_info_make_platform_data), and a launcher may send only the newer key, which
/// GTK 4.8's GtkApplication does not read (gtkapplication-wayland.c, before_emit: it takes
/// `desktop-startup-id` only; GTK 4.10 reads both, `activation-token` first).
public enum ClickTokenPlatformData {
    /// The keys, in the order GTK 4.10 reads them: the Wayland name first.
    public static let keys = ["activation-token", "desktop-startup-id"]

    /// The token among the platform data's strings: `activation-token`'s, else
    /// `desktop-startup-id`'s; `nil` when neither holds a value.
    public static func token(_ value: (String) -> String?) -> String? {
        keys.lazy.compactMap(value).first { !$0.isEmpty }
    }

    /// The token of a call's platform data, an `a{sv}` (`GVariant *`, transfer none), as
    /// GApplication's `before_emit` gets it; `nil` for another type or no token.
    public static func token(inPlatformData platformData: OpaquePointer) -> String? {
        let dictionary = Variant(borrowing: platformData)
        return token { dictionary.lookup($0)?.string }
    }
}
