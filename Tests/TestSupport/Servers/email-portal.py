#!/usr/bin/python3
"""A stand-in for xdg-desktop-portal's org.freedesktop.portal.Email on the bus at
DBUS_SESSION_BUS_ADDRESS: the object /org/freedesktop/portal/desktop of
org.freedesktop.portal.Desktop, with the interface's `version` property, which is all
`mailto-route check` asks for.

  email-portal.py --ready FILE [--version N]

--ready is written once the name is owned.
"""
import argparse

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
EMAIL = "org.freedesktop.portal.Email"
PROPERTIES = "org.freedesktop.DBus.Properties"


class Portal(dbus.service.Object):
    def __init__(self, bus, version):
        super().__init__(bus, PATH)
        self.version = version

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if interface == EMAIL and name == "version":
            return dbus.UInt32(self.version)
        raise dbus.exceptions.DBusException("no such property", name="org.freedesktop.DBus.Error.UnknownProperty")

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"version": dbus.UInt32(self.version)} if interface == EMAIL else {}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ready", required=True)
    parser.add_argument("--version", type=int, default=4)
    options = parser.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    portal = Portal(bus, options.version)
    with open(options.ready, "w", encoding="utf-8") as file:
        file.write("ready\n")
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())
    loop.run()
    del name, portal


if __name__ == "__main__":
    main()
