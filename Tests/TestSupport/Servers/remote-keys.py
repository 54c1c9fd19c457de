#!/usr/bin/python3
"""Presses keys on a headless mutter as a person at its keyboard does: real input through a
RemoteDesktop session of its own (remote_desktop.py), to the window that has the focus.

  remote-keys.py KEYCODE...     evdev key codes (linux/input-event-codes.h): 108 Down, 28 Enter
"""
import sys

from gi.repository import Gio

from remote_desktop import press, remote_session

bus = Gio.bus_get_sync(Gio.BusType.SESSION)
session = remote_session(bus)
for keycode in sys.argv[1:]:
    press(bus, session, int(keycode))
