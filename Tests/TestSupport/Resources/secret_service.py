#!/usr/bin/python3
"""A private session bus with a minimal org.freedesktop.secrets on it, for the tests: what
libsecret calls for a lookup (seen with dbus-monitor on this bus):

  Properties.GetAll on the service, OpenSession (dh-ietf1024-sha256-aes128-cbc-pkcs7 is
  answered with org.freedesktop.DBus.Error.NotSupported, so that libsecret falls back to
  "plain"), SearchItems, Properties.GetAll on each item found, Unlock (a prompt object
  while the keyring is locked), Prompt.Prompt (which answers by itself a moment later with
  Completed(dismissed=false, unlocked paths)), GetSecrets and Session.Close,

over the items given as --item 'host=H,service=smtp,user=U:SECRET' (--locked for a locked
keyring; --dismiss makes its prompt answer as a person who closed it). --stall takes the name and then never answers anything, as a hung keyring daemon.
--log FILE appends one line per method called. Prints the bus address and the pids to stop
(the server and its bus), and runs detached for --lifetime seconds at most."""
import argparse
import os
import signal
import subprocess
import sys
import time

SERVICE = "org.freedesktop.Secret.Service"
ITEM = "org.freedesktop.Secret.Item"
PROMPT = "org.freedesktop.Secret.Prompt"
PROPERTIES = "org.freedesktop.DBus.Properties"
ROOT = "/org/freedesktop/secrets"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--item", action="append", default=[])
    parser.add_argument("--locked", action="store_true")
    parser.add_argument("--dismiss", action="store_true")
    parser.add_argument("--stall", action="store_true")
    parser.add_argument("--log")
    parser.add_argument("--lifetime", type=float, default=300)
    args = parser.parse_args()
    # As smtp_server.py: hold none of the test process's descriptors, and let SIGTERM
    # work again (blocked in the test's threads, and inherited so by dbus-daemon too).
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    bus = subprocess.Popen(["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    address = bus.stdout.readline().decode().strip()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write_fd)
        os.read(read_fd, 1)  # the service has its name on the bus
        print(address, pid, bus.pid, flush=True)
        os._exit(0)
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(null, descriptor)

    import dbus
    import dbus.service
    from dbus.mainloop.glib import DBusGMainLoop
    from gi.repository import GLib

    DBusGMainLoop(set_as_default=True)
    connection = dbus.bus.BusConnection(address)
    items = []
    for spec in args.item:
        attrs, secret = spec.split(":", 1)
        items.append((dict(pair.split("=", 1) for pair in attrs.split(",")), secret))
    state = {"locked": args.locked}

    def log(method):
        if args.log:
            with open(args.log, "a") as f:
                f.write(method + "\n")

    def item_path(index):
        return dbus.ObjectPath("%s/collection/login/%d" % (ROOT, index))

    class Properties(dbus.service.Object):
        """org.freedesktop.DBus.Properties over `properties(interface)`, which GDBusProxy
        (under libsecret's objects) reads when it is made."""

        def properties(self, interface):
            return {}

        @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
        def GetAll(self, interface):
            log("GetAll %s %s" % (self._object_path, interface))
            return dbus.Dictionary(self.properties(interface), signature="sv")

        @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
        def Get(self, interface, name):
            log("Get %s %s" % (self._object_path, name))
            return self.properties(interface)[name]

    class Service(Properties):
        def properties(self, interface):
            if interface != SERVICE:
                return {}
            return {"Collections": dbus.Array([dbus.ObjectPath(ROOT + "/collection/login")], signature="o")}

        @dbus.service.method(SERVICE, in_signature="sv", out_signature="vo")
        def OpenSession(self, algorithm, _input):
            log("OpenSession " + algorithm)
            if algorithm != "plain":
                raise dbus.exceptions.DBusException("only plain", name="org.freedesktop.DBus.Error.NotSupported")
            return dbus.String("", variant_level=1), dbus.ObjectPath(ROOT + "/session/1")

        @dbus.service.method(SERVICE, in_signature="a{ss}", out_signature="aoao")
        def SearchItems(self, attributes):
            log("SearchItems")
            found = [item_path(i) for i, (a, _) in enumerate(items) if all(a.get(k) == v for k, v in attributes.items())]
            return (dbus.Array([], signature="o"), found) if state["locked"] else (found, dbus.Array([], signature="o"))

        @dbus.service.method(SERVICE, in_signature="ao", out_signature="aoo")
        def Unlock(self, paths):
            log("Unlock")
            if not state["locked"]:
                return paths, dbus.ObjectPath("/")
            prompt.requested = paths
            return dbus.Array([], signature="o"), dbus.ObjectPath(ROOT + "/prompt/1")

        @dbus.service.method(SERVICE, in_signature="aoo", out_signature="a{o(oayays)}")
        def GetSecrets(self, paths, session):
            log("GetSecrets")
            result = {}
            if state["locked"]:
                return dbus.Dictionary(result, signature="o(oayays)")
            for path in paths:
                secret = items[int(path.rsplit("/", 1)[1])][1]
                result[path] = (session, dbus.ByteArray(b""), dbus.ByteArray(secret.encode()), "text/plain")
            return dbus.Dictionary(result, signature="o(oayays)")

    class Item(Properties):
        def __init__(self, index):
            super().__init__(connection, item_path(index))
            self.index = index

        def properties(self, interface):
            if interface != ITEM:
                return {}
            attributes, _ = items[self.index]
            return {
                "Locked": dbus.Boolean(state["locked"]),
                "Attributes": dbus.Dictionary(attributes, signature="ss"),
                "Label": dbus.String("item %d" % self.index),
                "Created": dbus.UInt64(0),
                "Modified": dbus.UInt64(0),
            }

    class Prompt(dbus.service.Object):
        """The keyring's own prompt, answered a moment later as a person who typed the
        keyring's password would (the keyring is unlocked and Completed says which objects),
        or with --dismiss as one who closed it."""
        requested = []

        @dbus.service.method(PROMPT, in_signature="s", out_signature="")
        def Prompt(self, window_id):
            log("Prompt")

            def answer():
                if args.dismiss:
                    self.Completed(True, dbus.Array([], signature="o", variant_level=1))
                else:
                    state["locked"] = False
                    self.Completed(False, dbus.Array(self.requested, signature="o", variant_level=1))
                return False
            GLib.timeout_add(50, answer)

        @dbus.service.method(PROMPT, in_signature="", out_signature="")
        def Dismiss(self):
            log("Dismiss")
            GLib.idle_add(lambda: self.Completed(True, dbus.Array([], signature="o", variant_level=1)) and False)

        @dbus.service.signal(PROMPT, signature="bv")
        def Completed(self, dismissed, result):
            pass

    class Session(dbus.service.Object):
        @dbus.service.method("org.freedesktop.Secret.Session", in_signature="", out_signature="")
        def Close(self):
            log("Close")

    name = dbus.service.BusName("org.freedesktop.secrets", connection)
    Service(connection, ROOT)
    for index in range(len(items)):
        Item(index)
    prompt = Prompt(connection, ROOT + "/prompt/1")
    Session(connection, ROOT + "/session/1")
    os.write(write_fd, b"x")
    if args.stall:
        # The name is owned, the calls are queued to us, and nothing is ever read: a
        # keyring daemon that hangs.
        time.sleep(args.lifetime)
    else:
        loop = GLib.MainLoop()
        GLib.timeout_add(int(args.lifetime * 1000), loop.quit)
        loop.run()
    del name
    bus.terminate()


if __name__ == "__main__":
    sys.exit(main())
