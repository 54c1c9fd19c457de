#!/usr/bin/python3
"""Listens on the X display DISPLAY names for startup notification messages (the freedesktop
startup notification spec: ClientMessages of type _NET_STARTUP_INFO_BEGIN and
_NET_STARTUP_INFO sent to the root window, 20 bytes each, a message ending at its NUL), as a
desktop's launch feedback (the busy cursor) does, with python3-xlib. Touches the --ready
file once it listens, and writes each whole message to --record as a line.

  startup-listener.py --ready FILE --record FILE
"""
import argparse
import os

from Xlib import X, display

parser = argparse.ArgumentParser()
parser.add_argument("--ready", required=True)
parser.add_argument("--record", required=True)
args = parser.parse_args()

screen = display.Display()
root = screen.screen().root
root.change_attributes(event_mask=X.PropertyChangeMask)
begin = screen.intern_atom("_NET_STARTUP_INFO_BEGIN")
more = screen.intern_atom("_NET_STARTUP_INFO")
screen.sync()
open(args.ready, "w").close()

pending = {}
while True:
    event = screen.next_event()
    if event.type != X.ClientMessage or event.client_type not in (begin, more):
        continue
    format, data = event.data
    if format != 8:
        continue
    chunk = bytes(data)
    text = (b"" if event.client_type == begin else pending.get(event.window.id, b"")) + chunk
    if b"\0" in text:
        pending.pop(event.window.id, None)
        with open(args.record, "a") as f:
            f.write(text.split(b"\0", 1)[0].decode("utf-8", "replace") + "\n")
    else:
        pending[event.window.id] = text
