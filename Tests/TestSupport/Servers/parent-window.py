#!/usr/bin/python3
"""An application's window on the X display DISPLAY names (python3-xlib): a plain top-level
window, mapped, whose id it prints as the portal names a parent window (x11:XID in
hexadecimal) once the server has it, then keeps until it is killed.

  parent-window.py
"""
import signal
import sys

from Xlib import X, display

d = display.Display()
window = d.screen().root.create_window(20, 20, 300, 200, 0, X.CopyFromParent)
window.set_wm_name("Parent Application")
window.map()
d.sync()
print("x11:%x" % window.id, flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
while True:
    d.next_event()
