/// The window of the application a request came from, as xdg-desktop-portal names it (the
/// Email portal's `parent_window`, and `PARENT_WINDOW_ID` in the environment of a program its
/// OpenURI launches): `x11:XID`, the X window id in hexadecimal, or `wayland:HANDLE`, a
/// handle the application exported with xdg-foreign. The windows the request opens are made
/// transient for it, so that the window manager keeps them above the application's window
/// (ParentWindowHint.swift). Empty, or of another kind: no parent.
public enum ParentWindow: Equatable, Sendable {
    case x11(UInt)
    case wayland(String)

    /// The parent a portal's identifier names; `nil` for none or one not understood.
    public init?(_ identifier: String?) {
        guard let identifier, let colon = identifier.firstIndex(of: ":") else { return nil }
        let value = String(identifier[identifier.index(after: colon)...])
        switch identifier[..<colon] {
        case "x11":
            // The portal spec's "x11:" + the id printed with %lx; a 0x in front is taken too.
            let digits = value.hasPrefix("0x") || value.hasPrefix("0X") ? String(value.dropFirst(2)) : value
            guard let id = UInt(digits, radix: 16), id != 0 else { return nil }
            self = .x11(id)
        case "wayland":
            guard !value.isEmpty else { return nil }
            self = .wayland(value)
        default:
            return nil
        }
    }
}
