#!/usr/bin/python3
"""A scripted org.gtk.Notifications server (GNOME Shell's interface, which GLib's
GNotification uses where it runs) on the bus at DBUS_SESSION_BUS_ADDRESS. Records each call
as one JSON line in --record: {"method", "app", "id", "title", "body", "buttons":
[{"label", "action", "target"}]}.

  gtk-notifications.py --record FILE --ready FILE

Clicking a button is the test's part: org.freedesktop.Application.ActivateAction on the
application's name, as GNOME Shell does (which D-Bus activates the application when it
is not running).
"""
import argparse
import json

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.gtk.Notifications"
PATH = "/org/gtk/Notifications"

parser = argparse.ArgumentParser()
parser.add_argument("--record", required=True)
parser.add_argument("--ready", required=True)
args = parser.parse_args()


def plain(value):
    if isinstance(value, (dbus.String, dbus.ObjectPath)):
        return str(value)
    if isinstance(value, (dbus.Array, list)):
        return [plain(v) for v in value]
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64, dbus.Byte)):
        return int(value)
    return str(value)


def record(entry):
    with open(args.record, "a") as f:
        f.write(json.dumps(entry) + "\n")


class Server(dbus.service.Object):
    @dbus.service.method(NAME, in_signature="ssa{sv}", out_signature="")
    def AddNotification(self, app, id, notification):
        fields = plain(notification)
        buttons = [{"label": b.get("label"), "action": b.get("action"), "target": b.get("target")}
                   for b in fields.get("buttons", [])]
        record({"method": "AddNotification", "app": str(app), "id": str(id), "title": fields.get("title"),
                "body": fields.get("body"), "buttons": buttons})

    @dbus.service.method(NAME, in_signature="ss", out_signature="")
    def RemoveNotification(self, app, id):
        record({"method": "RemoveNotification", "app": str(app), "id": str(id)})


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName(NAME, bus)
server = Server(bus, PATH)
open(args.ready, "w").close()
GLib.MainLoop().run()
