"""mutter's RemoteDesktop D-Bus API, for the scripts that give a headless mutter real input
(link-clicker.py, remote-keys.py): a session of its own, and a key pressed through it."""
from gi.repository import Gio, GLib

REMOTE = "org.gnome.Mutter.RemoteDesktop"
SESSION = REMOTE + ".Session"
KEY_LEFTSHIFT = 42


def call(bus, name, path, interface, method, parameters=None):
    return bus.call_sync(name, path, interface, method, parameters, None, Gio.DBusCallFlags.NONE, 60000, None)


def press(bus, session, keycode):
    """A press and release of the evdev `keycode` on the session's virtual keyboard."""
    for pressed in (True, False):
        call(bus, REMOTE, session, SESSION, "NotifyKeyboardKeycode", GLib.Variant("(ub)", (keycode, pressed)))


def remote_session(bus):
    """A RemoteDesktop session, started, with mutter's virtual keyboard and pointer made by a
    Shift pressed and released and a move of the pointer. Until then a headless mutter has no
    keyboard (mutter 43 makes a session's devices at their first event), so no window has the
    keyboard focus (GTK's is-active); it is held while its caller runs (the session ends with
    its caller)."""
    session = call(bus, REMOTE, "/org/gnome/Mutter/RemoteDesktop", REMOTE, "CreateSession").unpack()[0]
    call(bus, REMOTE, session, SESSION, "Start")
    press(bus, session, KEY_LEFTSHIFT)
    # The pointer now too, so that a window has its wl_pointer before a click.
    call(bus, REMOTE, session, SESSION, "NotifyPointerMotionRelative", GLib.Variant("(dd)", (1.0, 1.0)))
    return session
