#!/usr/bin/python3
"""A stand-in for systemd --user's manager on the bus at DBUS_SESSION_BUS_ADDRESS: the
object /org/freedesktop/systemd1 of org.freedesktop.systemd1, with the Manager
interface's `Environment` property (an `as` of NAME=value), which is all
`mailto-route check` asks for to tell what a D-Bus-activated process gets.

  systemd-manager.py --ready FILE [--env NAME=value]...

--ready is written once the name is owned.
"""
import argparse

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.systemd1"
PATH = "/org/freedesktop/systemd1"
MANAGER = "org.freedesktop.systemd1.Manager"
PROPERTIES = "org.freedesktop.DBus.Properties"


class Manager(dbus.service.Object):
    def __init__(self, bus, environment):
        super().__init__(bus, PATH)
        self.environment = environment

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if interface == MANAGER and name == "Environment":
            return dbus.Array(self.environment, signature="s")
        raise dbus.exceptions.DBusException("no such property", name="org.freedesktop.DBus.Error.UnknownProperty")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ready", required=True)
    parser.add_argument("--env", action="append", default=[])
    options = parser.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    manager = Manager(bus, options.env)
    with open(options.ready, "w", encoding="utf-8") as file:
        file.write("ready\n")
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())
    loop.run()
    del name, manager


if __name__ == "__main__":
    main()
