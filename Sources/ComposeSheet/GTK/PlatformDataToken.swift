internal import CGTK
import DesktopIntegration

// GTK 4.8's GtkApplication puts only the `desktop-startup-id` of an org.freedesktop.Application
// call's platform data on the display, where the first window the call opens takes it
// (WindowActivation.swift). A launcher on GLib 2.76 or later sends `activation-token` beside
// it, and one may send that alone: read after GTK, the newer key's token replaces what GTK
// put there, so that a newer launcher's token is not lost.

/// Reads the token of each `org.freedesktop.Application` call to `application` (GTK's class's
/// `before_emit`, wrapped once per process) and puts it on the default display, as GTK 4.10
/// does: `activation-token` first, else `desktop-startup-id`.
func readPlatformDataTokens(of application: UnsafeMutablePointer<GApplication>) {
    mr_read_platform_data(application, onPlatformData)
}

private func onPlatformData(_ platformData: OpaquePointer?) {
    guard let platformData, let token = ClickTokenPlatformData.token(inPlatformData: platformData),
          let display = gdk_display_get_default() else { return }
    if mr_is_wayland_display(display) != 0 {
        gdk_wayland_display_set_startup_notification_id(display, token)
    } else if mr_is_x11_display(display) != 0 {
        gdk_x11_display_set_startup_notification_id(display, token)
    }
}
