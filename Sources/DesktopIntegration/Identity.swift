/// What a person sees mailto-route as: its name in the desktop's lists, on notifications and
/// in the AppStream metainfo, and its icon in the hicolor theme (data/icons, installed by
/// `make install`; the desktop files and the metainfo name the same). The command stays
/// `mailto-route`.
public enum Identity {
    public static let name = "Mail Link"
    /// The application id, which is also the icon's name.
    public static let icon = "io.github.mailto_route.MailtoRoute"
}
