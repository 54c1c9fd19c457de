#!/usr/bin/python3
"""A real org.freedesktop.Notifications server for the tests, on the bus at
DBUS_SESSION_BUS_ADDRESS, whose answers are scripted on the command line.

  notification-server.py --record FILE --ready FILE [--capabilities a,b,...]
                         [--answer STEP]... [--delay SECONDS] [--silent-notify]

Each Notify call is recorded as one JSON line in --record (method, app_name, summary,
body, actions, hints, expire_timeout, id); so is each CloseNotification. --ready is
written once the name is owned. After each Notify, the --answer steps run in order,
--delay apart:
  action:KEY        ActionInvoked(id, KEY), then NotificationClosed(id, 2), as servers do
  resident-action:KEY  ActionInvoked(id, KEY) alone: the notification stays on screen
  button:LABEL      ActionInvoked(id, the key of the button labelled LABEL), then
                    NotificationClosed(id, 2): a person pressing it (GLib's keys name
                    the action and its target, unknown to the test beforehand)
  close:REASON      NotificationClosed(id, REASON)
  other-action:KEY  ActionInvoked for another id (a notification of someone else)
  other-close:R     NotificationClosed for another id
  (no steps)        never answer: the client must time out
--silent-notify never replies to Notify at all (a stuck server).
"""
import argparse
import json
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

INTERFACE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def plain(value):
    """dbus-python values as JSON ones."""
    if isinstance(value, (dbus.Byte, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64, dbus.Int16, dbus.UInt16)):
        return int(value)
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Array, list)):
        return [plain(item) for item in value]
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(key): plain(item) for key, item in value.items()}
    return str(value)


class Server(dbus.service.Object):
    def __init__(self, bus, options):
        super().__init__(bus, PATH)
        self.options = options
        self.next_id = 41
        # Each notification's actions (key, label, ...), for button: steps.
        self.actions = {}

    def record(self, entry):
        with open(self.options.record, "a", encoding="utf-8") as file:
            file.write(json.dumps(entry) + "\n")
            file.flush()

    @dbus.service.method(INTERFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return [c for c in self.options.capabilities.split(",") if c]

    @dbus.service.method(INTERFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("scripted-notifications", "mailto-route tests", "1.0", "1.2")

    @dbus.service.method(INTERFACE, in_signature="susssasa{sv}i", out_signature="u",
                         async_callbacks=("reply", "error"))
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout,
               reply, error):
        self.next_id += 1
        notification = self.next_id
        self.record({
            "method": "Notify", "id": notification, "app_name": str(app_name), "app_icon": str(app_icon), "summary": str(summary),
            "body": str(body), "actions": plain(actions), "hints": plain(hints),
            "expire_timeout": int(expire_timeout),
        })
        if self.options.silent_notify:
            return
        reply(dbus.UInt32(notification))
        delay = int(self.options.delay * 1000)
        self.actions[notification] = [str(a) for a in actions]
        for index, step in enumerate(self.options.answer):
            GLib.timeout_add(delay * (index + 1), self.run_step, notification, step)

    @dbus.service.method(INTERFACE, in_signature="u", out_signature="")
    def CloseNotification(self, notification):
        self.record({"method": "CloseNotification", "id": int(notification)})
        self.NotificationClosed(notification, 3)

    @dbus.service.signal(INTERFACE, signature="us")
    def ActionInvoked(self, notification, key):
        pass

    @dbus.service.signal(INTERFACE, signature="uu")
    def NotificationClosed(self, notification, reason):
        pass

    def run_step(self, notification, step):
        kind, _, value = step.partition(":")
        if kind == "action":
            self.ActionInvoked(notification, value)
            self.NotificationClosed(notification, 2)
        elif kind == "button":
            actions = self.actions.get(notification, [])
            keys = [actions[i] for i in range(0, len(actions) - 1, 2) if actions[i + 1] == value]
            if keys:
                self.ActionInvoked(notification, keys[0])
                self.NotificationClosed(notification, 2)
        elif kind == "resident-action":
            # A resident notification (or a server that keeps answered ones, as some
            # do): the button is pressed and the notification stays until closed.
            self.ActionInvoked(notification, value)
        elif kind == "close":
            self.NotificationClosed(notification, int(value))
        elif kind == "other-action":
            self.ActionInvoked(notification + 1000, value)
        elif kind == "other-close":
            self.NotificationClosed(notification + 1000, int(value))
        else:
            print(f"notification-server: unknown step {step}", file=sys.stderr)
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", required=True)
    parser.add_argument("--ready", required=True)
    parser.add_argument("--capabilities", default="actions,body")
    parser.add_argument("--answer", action="append", default=[])
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--silent-notify", action="store_true")
    options = parser.parse_args()

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName(INTERFACE, bus, do_not_queue=True)
    server = Server(bus, options)
    with open(options.ready, "w", encoding="utf-8") as file:
        file.write("ready\n")
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())
    loop.run()
    del name, server


if __name__ == "__main__":
    main()
