#!/usr/bin/python3
"""Calls org.freedesktop.impl.portal.Email.ComposeEmail on the bus at
DBUS_SESSION_BUS_ADDRESS exactly as xdg-desktop-portal's frontend calls a backend
(src/email.c: handle, app_id, parent_window, and the options it passes on), and prints
{"response": N, "results": {...}} as one JSON line when the backend answers.

  portal-client.py --handle PATH --app-id ID [--to A]... [--cc A]... [--bcc A]...
                   [--subject S] [--body B] [--attach PATH]... [--close-after SECONDS]
                   [--parent-window x11:XID]

--close-after calls org.freedesktop.impl.portal.Request.Close on the handle, as the
frontend does when the application withdraws its request.
"""
import argparse
import json
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

BACKEND = "org.freedesktop.impl.portal.desktop.mailtoroute"
PATH = "/org/freedesktop/portal/desktop"

parser = argparse.ArgumentParser()
parser.add_argument("--handle", required=True)
parser.add_argument("--app-id", default="")
parser.add_argument("--to", action="append", default=[])
parser.add_argument("--cc", action="append", default=[])
parser.add_argument("--bcc", action="append", default=[])
parser.add_argument("--subject")
parser.add_argument("--body")
parser.add_argument("--attach", action="append", default=[])
parser.add_argument("--close-after", type=float)
parser.add_argument("--parent-window", default="")
parser.add_argument("--timeout", type=float, default=120)
args = parser.parse_args()

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
options = {}
# The frontend passes "address" (one, from the client's "address") and "addresses".
if args.to:
    options["address"] = dbus.String(args.to[0])
    if len(args.to) > 1:
        options["addresses"] = dbus.Array(args.to[1:], signature="s")
for key, values in (("cc", args.cc), ("bcc", args.bcc), ("attachments", args.attach)):
    if values:
        options[key] = dbus.Array(values, signature="s")
if args.subject is not None:
    options["subject"] = dbus.String(args.subject)
if args.body is not None:
    options["body"] = dbus.String(args.body)

loop = GLib.MainLoop()
outcome = {}


def answered(response, results):
    outcome["response"] = int(response)
    outcome["results"] = {str(k): str(v) for k, v in results.items()}
    loop.quit()


def failed(error):
    outcome["error"] = str(error)
    loop.quit()


backend = dbus.Interface(bus.get_object(BACKEND, PATH), "org.freedesktop.impl.portal.Email")
backend.ComposeEmail(dbus.ObjectPath(args.handle), args.app_id, args.parent_window, dbus.Dictionary(options, signature="sv"),
                     reply_handler=answered, error_handler=failed, timeout=args.timeout)


def close():
    request = dbus.Interface(bus.get_object(BACKEND, args.handle), "org.freedesktop.impl.portal.Request")
    request.Close()
    return False


if args.close_after is not None:
    GLib.timeout_add(int(args.close_after * 1000), close)
loop.run()
print(json.dumps(outcome))
sys.exit(0 if "response" in outcome else 1)
