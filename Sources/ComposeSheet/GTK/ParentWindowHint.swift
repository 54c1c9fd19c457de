internal import CGTK

/// Makes `widget` (a GtkWindow not shown yet) transient for the application's window a
/// portal request named, so that the window manager keeps it above that window: realized
/// first (its surface exists then, and is not mapped yet), then WM_TRANSIENT_FOR on X11
/// (`mr_set_x11_transient_for`) or xdg-foreign's import on Wayland
/// (`gdk_wayland_toplevel_set_transient_for_exported`). A parent of the other kind of
/// display than this one's, or one gone by now, is left alone: the window opens as it would
/// without one.
func setTransientParent(_ widget: UnsafeMutablePointer<GtkWidget>, _ parent: ParentWindow?) {
    guard let parent else { return }
    gtk_widget_realize(widget)
    switch parent {
    case .x11(let id): _ = mr_set_x11_transient_for(widget, id)
    case .wayland(let handle): _ = mr_set_wayland_transient_for(widget, handle)
    }
}
