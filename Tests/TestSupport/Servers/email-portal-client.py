#!/usr/bin/python3
"""An application using xdg-desktop-portal's Email portal on the bus at
DBUS_SESSION_BUS_ADDRESS, as GTK's and Qt's portal code does:
org.freedesktop.portal.Email.ComposeEmail("", options) with the files as `attachment_fds`
(opened read-only here), then the org.freedesktop.portal.Request::Response signal on the
handle it returned. Prints {"response": N} as one JSON line.

  email-portal-client.py [--to A] [--subject S] [--body B] [--attach PATH]...
"""
import argparse
import json
import os
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

parser = argparse.ArgumentParser()
parser.add_argument("--to")
parser.add_argument("--subject")
parser.add_argument("--body")
parser.add_argument("--attach", action="append", default=[])
parser.add_argument("--timeout", type=float, default=120)
args = parser.parse_args()

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
sender = bus.get_unique_name()[1:].replace(".", "_")
token = "mailto_route_test_%d" % os.getpid()
handle = "/org/freedesktop/portal/desktop/request/%s/%s" % (sender, token)
loop = GLib.MainLoop()
outcome = {}


def response(code, results):
    outcome["response"] = int(code)
    loop.quit()


# Subscribed before the call, as the portal documentation asks, so no answer is missed.
bus.add_signal_receiver(response, signal_name="Response", dbus_interface="org.freedesktop.portal.Request",
                        path=handle)
options = {"handle_token": dbus.String(token)}
if args.to:
    options["address"] = dbus.String(args.to)
if args.subject:
    options["subject"] = dbus.String(args.subject)
if args.body:
    options["body"] = dbus.String(args.body)
if args.attach:
    options["attachment_fds"] = dbus.Array([dbus.types.UnixFd(os.open(path, os.O_RDONLY)) for path in args.attach],
                                           signature="h")
portal = dbus.Interface(bus.get_object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop"),
                        "org.freedesktop.portal.Email")
returned = portal.ComposeEmail("", dbus.Dictionary(options, signature="sv"), timeout=args.timeout)
outcome["handle"] = str(returned)
GLib.timeout_add(int(args.timeout * 1000), loop.quit)
loop.run()
print(json.dumps(outcome))
sys.exit(0 if "response" in outcome else 1)
