#!/usr/bin/python3
"""A desktop of the tests' own for the sheet tests: Xvfb (a display nobody sees), a private
D-Bus session bus, and the AT-SPI accessibility bus with its registry on it, as a GNOME
session would have them. Prints DISPLAY and the bus address to the --ready file once all
three serve, then stays until its parent (the test process) is gone or it gets SIGTERM, and
takes everything it started down with it.

With --display-only, Xvfb alone (no bus, no accessibility), and only DISPLAY is printed:
for a test process that shows windows of its own and drives them in-process.

Usage: desktop-session.py --ready FILE --dir DIR [--display-only]
"""
import argparse
import os
import signal
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--ready", required=True)
parser.add_argument("--dir", required=True)
parser.add_argument("--display-only", action="store_true")
args = parser.parse_args()

parent = os.getppid()
children = []


def stop(*_):
    for child in reversed(children):
        try:
            os.killpg(child.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for child in children:
        try:
            child.wait(timeout=3)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)


def start(argv, env=None, **kwargs):
    child = subprocess.Popen(argv, env=env, start_new_session=True, stdin=subprocess.DEVNULL, **kwargs)
    children.append(child)
    return child


# Xvfb picks a free display number itself and says which on the descriptor we give it.
# -noreset: a bare X server resets when its last client leaves and refuses connections
# meanwhile, so that a program starting just as another's window closed found no display
# ("cannot start GTK: no display it can open").
read_end, write_end = os.pipe()
start(["/usr/bin/Xvfb", "-displayfd", str(write_end), "-screen", "0", "1024x768x24", "-nolisten", "tcp",
       "-noreset", "-auth", "/dev/null"], pass_fds=[write_end], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(write_end)
number = b""
while not number.endswith(b"\n"):
    chunk = os.read(read_end, 16)
    if not chunk:
        stop()
    number += chunk
os.close(read_end)
display = ":" + number.decode().strip()


def ready(lines):
    tmp = args.ready + ".tmp"
    with open(tmp, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    os.rename(tmp, args.ready)


def stay():
    while os.getppid() == parent:
        time.sleep(0.2)
    stop()


if args.display_only:
    ready([display])
    stay()

# The session bus with the system's service files, so that org.a11y.Bus is activated as in a
# real session; its socket lives in our directory.
# The system's data directories for the desktop's own services (whatever XDG_DATA_DIRS the
# programs under test get): the bus finds org.a11y.Bus there.
# GTK draws with cairo here: on a display with no GPU its GL renderer runs on Mesa's
# llvmpipe, which compiled its shaders afresh in every sheet (a test's HOME is new, and so
# is Mesa's shader cache in it): a third of the whole test run's CPU time. Nor does GDK make
# the GL context it opens on X11 with any renderer (GDK_DEBUG=gl-disable): Mesa's threads
# and shader cache in each sheet took a tenth of the run's CPU time all the same.
# xdg-desktop-portal, when a program on the bus starts it, finds no backend (an empty
# XDG_DESKTOP_PORTAL_DIR): the settings a sheet reads and the way a browser opens a link are
# then the same whichever backends the machine has installed (xdg-desktop-portal-gtk would
# answer Settings and OpenURI from this session's environment, not the test's). A test that
# wants a portal starts its own (OpenURIPortal).
portals = os.path.join(args.dir, "portals")
os.makedirs(portals, exist_ok=True)
env = dict(os.environ, DISPLAY=display, XDG_DATA_DIRS="/usr/local/share:/usr/share", GSK_RENDERER="cairo",
           GDK_DEBUG="gl-disable", XDG_DESKTOP_PORTAL_DIR=portals)
env.pop("DBUS_SESSION_BUS_ADDRESS", None)
bus = start(["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1",
             "--address=unix:path=" + os.path.join(args.dir, "bus")], env=env, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
address = bus.stdout.readline().decode().strip()
env["DBUS_SESSION_BUS_ADDRESS"] = address
# The accessibility bus and its registry, started now rather than on the first program's
# request, so that the first sheet of a run is not slower than the others.
start(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"], env=env,
      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.time() + 10
while True:
    probe = subprocess.run(["/usr/bin/python3", "-c", "import pyatspi; pyatspi.Registry.getDesktop(0).childCount"],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if probe.returncode == 0:
        break
    if time.time() > deadline:
        stop()
    time.sleep(0.1)

ready([display, address])
stay()
