internal import CGTK
import MainLoop

// The window a click opens first takes the focus with the click's activation token.
//
// On X11 the token is a startup notification id: `gtk_window_set_startup_id` puts it on the
// window (_NET_STARTUP_ID, and its _TIME as _NET_WM_USER_TIME) and ends the startup sequence
// when the window maps.
//
// On Wayland GTK 4.8's `gtk_window_set_startup_id` does nothing. What activates is
// `gtk_window_present`: GDK's toplevel focus (gdk/wayland, gdk_wayland_toplevel_focus) takes
// the display's startup notification id and sends xdg_activation_v1.activate with it; with
// none it asks for a token of its own, from an input serial this process never had, which a
// strict compositor refuses. The token is spent once: mutter forgets it at its first
// activate (meta-wayland-activation.c). And an activate before the window is mapped is lost:
// mutter 43 tries to focus a window it is not showing yet ("not showing, not focusing after
// all"), then applies focus-new-windows at the map as if no token had come; wlroots
// compositors ignore it too. So the window is first presented without the token, and once
// the compositor has put its surface on a monitor (GdkSurface::enter-monitor), the token goes
// on the display and the window is presented again: the activate then finds it on screen.

/// Shows `widget` (a GtkWindow) as `gtk_window_present` does, with `token` (the click's
/// XDG activation token or startup id) where there is one. On Wayland, a window given none
/// takes the one GtkApplication put on the display from the platform data of the D-Bus call
/// that brought it (`desktop-startup-id` of `org.freedesktop.Application.Open`, `Activate`
/// or `ActivateAction`: gtkapplication-wayland.c, before_emit), the first such window only,
/// as GDK would.
@GLibMainActor
func presentWindow(_ widget: UnsafeMutablePointer<GtkWidget>, activationToken given: String?) {
    let window = mr_window(widget)
    guard let display = gtk_widget_get_display(widget), mr_is_wayland_display(display) != 0 else {
        if let given, !given.isEmpty { gtk_window_set_startup_id(window, given) }
        return gtk_window_present(window)
    }
    let fromCall = gdk_wayland_display_get_startup_notification_id(display).map { String(cString: $0) }
    guard let token = [given, fromCall].lazy.compactMap({ $0 }).first(where: { !$0.isEmpty }) else {
        return gtk_window_present(window)
    }
    // Not now: the id on the display (GDK's from DESKTOP_STARTUP_ID at start, or
    // GtkApplication's from a call) would be spent by the first present before the window is
    // on screen.
    gdk_wayland_display_set_startup_notification_id(display, nil)
    gtk_window_present(window)
    guard let surface = gtk_native_get_surface(mr_native(widget)) else { return }
    let again = PresentAgain(window: widget, surface: UnsafeMutableRawPointer(surface), token: token)
    // The surface holds it until it has presented again (or the surface goes first).
    again.handler = g_signal_connect_data(UnsafeMutableRawPointer(surface), "enter-monitor",
                                          unsafeBitCast(onEnterMonitor as EnterMonitorHandler, to: GCallback.self),
                                          Unmanaged.passRetained(again).toOpaque(), releasePresentAgain, GConnectFlags(0))
}

/// A window to present with its click's token once its surface is on screen.
@GLibMainActor
private final class PresentAgain {
    let window: UnsafeMutablePointer<GtkWidget>
    let surface: UnsafeMutableRawPointer
    let token: String
    var handler: gulong = 0

    init(window: UnsafeMutablePointer<GtkWidget>, surface: UnsafeMutableRawPointer, token: String) {
        self.window = window
        self.surface = surface
        self.token = token
    }

    func present() {
        if let display = gtk_widget_get_display(window) {
            gdk_wayland_display_set_startup_notification_id(display, token)
        }
        gtk_window_present(mr_window(window))
        // Once: the handler goes, and with it the surface's reference to this.
        g_signal_handler_disconnect(surface, handler)
    }
}

/// GdkSurface::enter-monitor: the surface, the monitor.
private typealias EnterMonitorHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

private func onEnterMonitor(_ surface: UnsafeMutableRawPointer?, _ monitor: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        guard let data else { return }
        Unmanaged<PresentAgain>.fromOpaque(data).takeUnretainedValue().present()
    }
}

private func releasePresentAgain(_ data: UnsafeMutableRawPointer?, _ closure: UnsafeMutablePointer<GClosure>?) {
    guard let data else { return }
    Unmanaged<PresentAgain>.fromOpaque(data).release()
}
