#!/usr/bin/python3
"""A focused GTK 4 application in which a person clicks a mailto: link, as in a browser: its
one window fills the screen; once the compositor has given it the keyboard focus it clicks
itself through mutter's RemoteDesktop D-Bus API (a virtual pointer's press and release, real
input with a serial, as a person's click is), and the click opens the link:

  --how gio      as Firefox does: g_app_info_launch_default_for_uri with the display's launch
                 context (GTK asks the compositor for an activation token from the click)
  --how portal   as Chromium does: org.freedesktop.portal.OpenURI.OpenURI("", URL,
                 {activation_token}), the token asked for the same way
  --how open     as a launcher does with a D-Bus activatable entry (GNOME Shell, GIO with
                 StartupNotify=true): org.freedesktop.Application.Open([URL],
                 {desktop-startup-id}) of mailto-route's desktop service
  --how none     not at all: the terminal in which the person then types a command, which
                 has the keyboard focus and clicks nothing (--url is not opened)

Each thing that happens goes to the --record file as a line (active, clicked, token ID (the
click's activation token), launched or opened, or failed: REASON). Stays until it gets
SIGTERM.

  link-clicker.py --url URL --how gio|portal|open|none --record FILE [--app-id ID]

--app-id (default "Terminal") is the application id the window has (on Wayland mutter takes
it as the window's class): mutter 43 applies focus-new-windows=strict only while a terminal
has the focus (window.c, window_state_on_map), so the default class is one it counts as such.
"""
import argparse
import os
import signal

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, GLib, Gtk  # noqa: E402

from remote_desktop import REMOTE, call, remote_session  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--url", required=True)
parser.add_argument("--how", choices=["gio", "portal", "open", "none"], required=True)
parser.add_argument("--record", required=True)
parser.add_argument("--app-id", default="Terminal")
args = parser.parse_args()

GLib.set_prgname(args.app_id)
SERVICE, SERVICE_PATH = "io.github.mailto_route.MailtoRoute", "/io/github/mailto_route/MailtoRoute"
BTN_LEFT = 0x110


def record(line):
    with open(args.record, "a") as f:
        f.write(line + "\n")


def record_token(value):
    """The click's activation token (a launch's startup-notification-id), as "token ID"."""
    if value is not None and value.get_string():
        record("token " + value.get_string())


def move_pointer(step):
    """Moves mutter's virtual pointer a little (the window fills the screen): mutter looks
    again which surface is under it, and the window learns it is there."""
    call(bus, REMOTE, session, REMOTE + ".Session", "NotifyPointerMotionRelative", GLib.Variant("(dd)", (step, step)))


def click_myself():
    """A press and release of mutter's virtual pointer over the window."""
    interface = REMOTE + ".Session"
    call(bus, REMOTE, session, interface, "NotifyPointerButton", GLib.Variant("(ib)", (BTN_LEFT, True)))
    call(bus, REMOTE, session, interface, "NotifyPointerButton", GLib.Variant("(ib)", (BTN_LEFT, False)))


def open_link(gesture, *_):
    record("clicked")
    display = gesture.get_widget().get_display()
    context = display.get_app_launch_context()
    try:
        if args.how == "gio":
            # GIO asks GTK for the click's token itself; the launch reports it.
            context.connect("launched", lambda _context, _info, data: record_token(data.lookup_value("startup-notification-id")))
            Gio.AppInfo.launch_default_for_uri(args.url, context)
            record("launched")
        elif args.how == "open":
            token = context.get_startup_notify_id(Gio.DesktopAppInfo.new(SERVICE + ".desktop"), []) or ""
            if not token:
                return record("failed: GTK gave no activation token for the click")
            record("token " + token)
            data = {"desktop-startup-id": GLib.Variant("s", token)}
            call(bus, SERVICE, SERVICE_PATH, "org.freedesktop.Application", "Open",
                 GLib.Variant("(asa{sv})", ([args.url], data)))
            record("opened")
        else:
            # Chromium asks its toolkit for a token from the click (xdg_activation_v1) and
            # hands it to the portal.
            handler = Gio.AppInfo.get_default_for_uri_scheme("mailto")
            token = context.get_startup_notify_id(handler, []) or ""
            if not token:
                return record("failed: GTK gave no activation token for the click")
            record("token " + token)
            options = {"activation_token": GLib.Variant("s", token)}
            call(bus, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                 "org.freedesktop.portal.OpenURI", "OpenURI", GLib.Variant("(ssa{sv})", ("", args.url, options)))
            record("opened")
    except Exception as error:  # noqa: BLE001 (the test reads it, and stops waiting)
        record("failed: %s" % error)


bus = Gio.bus_get_sync(Gio.BusType.SESSION)
session = remote_session(bus)
window = Gtk.Window(title="Link Clicker")
window.set_child(Gtk.Label(label=args.url))
clicks = Gtk.GestureClick()
clicks.connect("released", open_link)
window.add_controller(clicks)
clicked = []


def click_when_on_screen(*_):
    """Once the window has the keyboard focus, clicks it at the first frame at which mutter has
    told it that the pointer is over it (wl_pointer.enter; each frame starts when mutter has
    shown the one before): a press before mutter has put the pointer on the new window goes
    to no window."""
    if not window.is_active() or clicked:
        return
    clicked.append(True)
    record("active")
    if args.how == "none":
        return
    pointer = window.get_display().get_default_seat().get_pointer()
    moves = []

    def tick(*_):
        under, _, _ = pointer.get_surface_at_position()
        if under is None or under != window.get_surface():
            # Again at each frame: a move that mutter took before the window could be picked
            # (a loaded machine) told nobody. Back and forth, so that it stays on screen.
            moves.append(True)
            try:
                move_pointer(10.0 if len(moves) % 2 else -10.0)
            except GLib.Error as error:
                record("failed: " + error.message)
                return GLib.SOURCE_REMOVE
            return GLib.SOURCE_CONTINUE
        try:
            click_myself()
        except GLib.Error as error:
            record("failed: " + error.message)
        return GLib.SOURCE_REMOVE

    window.add_tick_callback(tick)


window.connect("notify::is-active", click_when_on_screen)
window.fullscreen()
window.present()
loop = GLib.MainLoop()
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
loop.run()
