#!/usr/bin/python3
"""A D-Bus-activatable mail program for the tests (a desktop entry with
DBusActivatable=true, as GNOME's Evolution and Geary are): the bus starts it from its
service file; it owns NAME and answers org.freedesktop.Application on the object path
GLib derives from NAME.

  dbus-mail-program.py NAME --record FILE [--answer reply|error|never]

Each call (Activate, Open, ActivateAction) is appended to --record as one JSON line
(method, uris, platform data keys). --answer: reply (the default) answers the call;
error answers it with an org.freedesktop.DBus.Error.Failed; never takes the call and
never answers it (a program stuck at start).
"""
import argparse
import json

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

INTERFACE = "org.freedesktop.Application"


class Program(dbus.service.Object):
    def __init__(self, bus, path, options):
        super().__init__(bus, path)
        self.options = options

    def record(self, method, uris, platform):
        with open(self.options.record, "a", encoding="utf-8") as file:
            file.write(json.dumps({"method": method, "uris": [str(uri) for uri in uris],
                                   "platform": sorted(str(key) for key in platform.keys())}) + "\n")
            file.flush()

    def answer(self, reply, error):
        if self.options.answer == "reply":
            reply()
        elif self.options.answer == "error":
            error(dbus.exceptions.DBusException("the mail program cannot open a window",
                                                name="org.freedesktop.DBus.Error.Failed"))
        # never: neither

    @dbus.service.method(INTERFACE, in_signature="a{sv}", out_signature="",
                         async_callbacks=("reply", "error"))
    def Activate(self, platform, reply, error):
        self.record("Activate", [], platform)
        self.answer(reply, error)

    @dbus.service.method(INTERFACE, in_signature="asa{sv}", out_signature="",
                         async_callbacks=("reply", "error"))
    def Open(self, uris, platform, reply, error):
        self.record("Open", uris, platform)
        self.answer(reply, error)

    @dbus.service.method(INTERFACE, in_signature="sava{sv}", out_signature="",
                         async_callbacks=("reply", "error"))
    def ActivateAction(self, name, parameter, platform, reply, error):
        self.record("ActivateAction", [name], platform)
        self.answer(reply, error)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("name")
    parser.add_argument("--record", required=True)
    parser.add_argument("--answer", choices=["reply", "error", "never"], default="reply")
    options = parser.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    # GLib's object path for an application id: '/' + the id with '.' as '/' and '-' as '_'.
    path = "/" + options.name.replace(".", "/").replace("-", "_")
    program = Program(bus, path, options)
    name = dbus.service.BusName(options.name, bus)
    GLib.MainLoop().run()
    del program, name


if __name__ == "__main__":
    main()
