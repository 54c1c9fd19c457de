#!/usr/bin/python3
"""A stand-in for xdg-document-portal on the bus at DBUS_SESSION_BUS_ADDRESS: the object
/org/freedesktop/portal/documents of org.freedesktop.portal.Documents with GetMountPoint,
AddFull and GrantPermissions. AddFull takes the file descriptors it is passed (as the real
portal does, by the file they name: /proc/self/fd), and puts a copy of each file at
MOUNT/DOC-ID/NAME, where the real portal's FUSE file system would show it, so that a
program given that path can read it. Every call is recorded, one JSON object per line.

  documents-portal.py --ready FILE --record FILE --mount DIR
"""
import argparse
import json
import os
import shutil

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.portal.Documents"
PATH = "/org/freedesktop/portal/documents"
DOCUMENTS = "org.freedesktop.portal.Documents"


class Documents(dbus.service.Object):
    def __init__(self, bus, mount, record):
        super().__init__(bus, PATH)
        self.mount = mount
        self.record = record
        self.next_id = 1

    def log(self, entry):
        with open(self.record, "a", encoding="utf-8") as file:
            file.write(json.dumps(entry) + "\n")

    @dbus.service.method(DOCUMENTS, in_signature="", out_signature="ay")
    def GetMountPoint(self):
        self.log({"method": "GetMountPoint"})
        return dbus.ByteArray(self.mount.encode() + b"\0")

    @dbus.service.method(DOCUMENTS, in_signature="ahusas", out_signature="asa{sv}")
    def AddFull(self, fds, flags, app_id, permissions):
        paths = []
        ids = []
        for fd in fds:
            number = fd.take()
            path = os.readlink("/proc/self/fd/%d" % number)
            os.close(number)
            paths.append(path)
            doc_id = "%x" % self.next_id
            self.next_id += 1
            os.makedirs(os.path.join(self.mount, doc_id))
            shutil.copyfile(path, os.path.join(self.mount, doc_id, os.path.basename(path)))
            ids.append(doc_id)
        self.log({"method": "AddFull", "paths": paths, "flags": int(flags), "app_id": str(app_id),
                  "permissions": [str(p) for p in permissions], "ids": ids})
        return (dbus.Array(ids, signature="s"), dbus.Dictionary({}, signature="sv"))

    @dbus.service.method(DOCUMENTS, in_signature="ssas", out_signature="")
    def GrantPermissions(self, doc_id, app_id, permissions):
        self.log({"method": "GrantPermissions", "id": str(doc_id), "app_id": str(app_id),
                  "permissions": [str(p) for p in permissions]})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ready", required=True)
    parser.add_argument("--record", required=True)
    parser.add_argument("--mount", required=True)
    options = parser.parse_args()
    os.makedirs(options.mount, exist_ok=True)
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    documents = Documents(bus, options.mount, options.record)
    with open(options.ready, "w", encoding="utf-8") as file:
        file.write("ready\n")
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())
    loop.run()
    del name, documents


if __name__ == "__main__":
    main()
