#!/usr/bin/python3
"""Drags files onto a point of the screen as a person would with a file manager: a small GTK 4
window of its own (PyGObject) whose GtkDragSource offers the files as a GdkFileList (GTK
serializes it as text/uri-list over XDND), and a real pointer drag from that window to the
point, pressed, moved in small steps and released through the AT-SPI registry (XTest), so that
the drop goes through the X server and both toolkits' XDND code as a real one does.

  drag-file.py --to X,Y [--timeout SECONDS] FILE...

X,Y are screen coordinates. Without a window manager (Xvfb in the tests) every window maps
at the top left: this one is small and is mapped last, so it lies on top of whatever is
there; the point must lie outside it. Prints one JSON line, {"dropped": true|false, "action":
the action the target last answered, "reason": why the drag was cancelled}, and exits 0 when
the files were dropped on a target that accepted them while dragged over it, 1 when the drag
was cancelled (no target there, or one that refused them), 2 when it did not end within the
timeout. Whether the target then did anything with them is the target's to show: over XDND,
GTK's source hears that the drop finished either way.
"""
import argparse
import json
import sys

import gi

gi.require_version("Gdk", "4.0")
gi.require_version("Gtk", "4.0")
import pyatspi
from gi.repository import Gdk, Gio, GLib, GObject, Gtk

parser = argparse.ArgumentParser()
parser.add_argument("--to", required=True)
parser.add_argument("--timeout", type=float, default=15.0)
parser.add_argument("files", nargs="+")
args = parser.parse_args()
target_x, target_y = (int(v) for v in args.to.split(","))

SIZE = 60
if target_x < SIZE and target_y < SIZE:
    # The drop would land on this window itself, which takes no files.
    print("drag-file: %d,%d is under the drag window (the top left %dx%d)" % (target_x, target_y, SIZE, SIZE),
          file=sys.stderr)
    sys.exit(2)
# Steps of a few pixels: GTK starts a drag only once the pointer has moved past its threshold
# while pressed, and the XDND target answers each position before the next one is sent.
STEP_PIXELS = 12
STEP_MS = 15

app = Gtk.Application(application_id=None, flags=Gio.ApplicationFlags.NON_UNIQUE)
outcome = {"dropped": False, "action": None, "reason": None}
status = [2]


def finish(code):
    status[0] = code
    print(json.dumps(outcome), flush=True)
    app.quit()


def mouse(x, y, event):
    pyatspi.Registry.generateMouseEvent(int(x), int(y), event)


def drive():
    """The drag as a sequence of pointer events on GLib timeouts, so that GTK handles each
    one (the drag threshold, XDND status replies) before the next."""
    start_x, start_y = SIZE // 2, SIZE // 2
    distance = max(abs(target_x - start_x), abs(target_y - start_y))
    count = max(distance // STEP_PIXELS, 1)
    path = [(start_x + (target_x - start_x) * i / count, start_y + (target_y - start_y) * i / count)
            for i in range(1, count + 1)]
    # Linger on the target with small moves: the source sends the drop on release only once
    # the target has answered a position with XdndStatus.
    path += [(target_x + 1, target_y), (target_x, target_y)] * 4
    events = [(start_x, start_y, "abs"), (start_x, start_y, "b1p")] + [(x, y, "abs") for x, y in path]
    events.append((target_x, target_y, "b1r"))

    def next_event():
        if not events:
            return GLib.SOURCE_REMOVE
        x, y, kind = events.pop(0)
        mouse(x, y, kind)
        return GLib.SOURCE_CONTINUE

    GLib.timeout_add(STEP_MS, next_event)


def on_prepare(source, x, y):
    files = Gdk.FileList.new_from_list([Gio.File.new_for_path(path) for path in args.files])
    return Gdk.ContentProvider.new_for_value(GObject.Value(Gdk.FileList, files))


def on_begin(source, drag):
    # The handle itself as the drag icon: GTK's default, a file type's symbolic icon, is an
    # SVG, which needs an image loader (librsvg) the tests do not otherwise need.
    source.set_icon(Gtk.WidgetPaintable.new(source.get_widget()), 0, 0)


def on_cancel(source, drag, reason):
    outcome["reason"] = reason.value_nick
    return False


def on_end(source, drag, delete_data):
    outcome["dropped"] = outcome["reason"] is None
    action = drag.get_selected_action()
    outcome["action"] = action.first_value_nick if action else None
    # Let the XDND finish reach the target before the window goes.
    GLib.timeout_add(100, lambda: finish(0 if outcome["dropped"] else 1))


def on_activate(application):
    window = Gtk.ApplicationWindow(application=application, title="drag-file")
    window.set_default_size(SIZE, SIZE)
    window.set_resizable(False)
    handle = Gtk.Label(label="file")
    handle.set_size_request(SIZE, SIZE)
    source = Gtk.DragSource(actions=Gdk.DragAction.COPY)
    source.connect("prepare", on_prepare)
    source.connect("drag-begin", on_begin)
    source.connect("drag-cancel", on_cancel)
    source.connect("drag-end", on_end)
    handle.add_controller(source)
    window.set_child(handle)
    # Mapped is not yet drawn and hit by the pointer: a moment later.
    window.connect("map", lambda _: GLib.timeout_add(300, lambda: drive() or GLib.SOURCE_REMOVE))
    GLib.timeout_add(int(args.timeout * 1000), lambda: finish(2))
    window.present()


app.connect("activate", on_activate)
app.run([sys.argv[0]])
sys.exit(status[0])
