#!/usr/bin/python3
"""A private session bus with a minimal org.freedesktop.secrets on it, for the tests:
starts dbus-daemon, serves OpenSession("plain"), SearchItems, GetSecrets and Session.Close
over the items given as --item 'host=H,service=smtp,user=U:SECRET' (--locked for items
behind a locked keyring), prints the bus address and the pids to stop (the server and its
bus), and runs detached for --lifetime seconds at most."""
import argparse
import os
import signal
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--item", action="append", default=[])
    parser.add_argument("--locked", action="store_true")
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

    class Service(dbus.service.Object):
        @dbus.service.method("org.freedesktop.Secret.Service", in_signature="sv", out_signature="vo")
        def OpenSession(self, algorithm, _input):
            if algorithm != "plain":
                raise dbus.exceptions.DBusException("only plain", name="org.freedesktop.DBus.Error.NotSupported")
            return dbus.String("", variant_level=1), dbus.ObjectPath("/org/freedesktop/secrets/session/1")

        @dbus.service.method("org.freedesktop.Secret.Service", in_signature="a{ss}", out_signature="aoao")
        def SearchItems(self, attributes):
            found = [dbus.ObjectPath("/org/freedesktop/secrets/collection/login/%d" % i)
                     for i, (a, _) in enumerate(items) if all(a.get(k) == v for k, v in attributes.items())]
            return ([], found) if args.locked else (found, [])

        @dbus.service.method("org.freedesktop.Secret.Service", in_signature="aoo", out_signature="a{o(oayays)}")
        def GetSecrets(self, paths, session):
            result = {}
            for path in paths:
                secret = items[int(path.rsplit("/", 1)[1])][1]
                result[path] = (session, dbus.ByteArray(b""), dbus.ByteArray(secret.encode()), "text/plain")
            return result

    class Session(dbus.service.Object):
        @dbus.service.method("org.freedesktop.Secret.Session", in_signature="", out_signature="")
        def Close(self):
            pass

    name = dbus.service.BusName("org.freedesktop.secrets", connection)
    Service(connection, "/org/freedesktop/secrets")
    Session(connection, "/org/freedesktop/secrets/session/1")
    os.write(write_fd, b"x")
    loop = GLib.MainLoop()
    GLib.timeout_add(int(args.lifetime * 1000), loop.quit)
    loop.run()
    del name
    bus.terminate()


if __name__ == "__main__":
    sys.exit(main())
