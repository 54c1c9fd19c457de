#!/usr/bin/python3
"""Drives a compose sheet as a person would, through the accessibility tree (AT-SPI, Debian's
python3-pyatspi): finds each control by the name a screen reader speaks, clicks into a field
and types (XTest key events through the AT-SPI registry), ticks a box, presses a button. Runs
the steps given on the command line in order and prints one JSON line per observation.

Steps:
  wait-sheet                  wait until a sheet shows (a window titled "New Message" or
                              "Message to …")
  sheet-words:NEW:TO:SEND     the words a sheet in another language shows, for wait-sheet,
                              wait-sheets and wait-gone: its titles ("Neue Nachricht",
                              "Nachricht an ") and its Send button ("Senden")
  type:NAME:TEXT              click into the field NAME, select all, type TEXT (replaces it),
                              until the field holds it
  append:NAME:TEXT            click into the field NAME, go to its end, type TEXT, until the
                              field holds it
  tick:NAME                   toggle the check box NAME (an attachment's path or name)
  press:NAME                  press the push button NAME
  press-in:TITLE:NAME         press the push button NAME of the window TITLE (a dialog's
                              Cancel, not the sheet's)
  menu:ITEM                   open the sheet's main menu and choose ITEM
  menu-of:BUTTON:ITEM         open the menu of the menu button BUTTON (Send's "Send Later")
                              and choose ITEM
  open-menu:BUTTON            open the menu of the menu button BUTTON, until it shows (then
                              choose:ITEM)
  right-click:NAME:TEXT       right-click the first TEXT in the field NAME (its context menu)
  choose:ITEM                 choose the menu item ITEM of a menu that is open
  underlined:NAME             prints the words of the field NAME underlined as misspelt
  wait-underlined:NAME:WORDS  wait until the words underlined in NAME include each of WORDS
                              (comma-separated) and none of those written -WORD (the spell
                              checker marks a moment after the text changes); prints them
  drop:NAME:PATH              drag the file PATH from a window of another program onto the
                              middle of the control NAME and drop it (Servers/drag-file.py);
                              prints the action the sheet chose
  key:KEYS                    press KEYS (ctrl+Return, Escape, Tab...) where the focus is; the
                              next step first waits until the press changed something a
                              person sees (windows, controls, states, text), or for 2 s that
                              it changes nothing
  text:TEXT                   type TEXT where the focus is, until the focused field holds it
  location:PATH               in GTK's file chooser: open its location field ("/"), type
                              PATH, and press Return once the field holds it
  wait-label:PREFIX           wait for a label starting with PREFIX; prints its text
  wait-window:TITLE           wait for a window titled TITLE (its controls are found from then on)
  wait-sheets:N               wait until N sheets are open
  wait-gone                   wait until no sheet is left
  wait-sheet-active           wait until a sheet's window is active (STATE_ACTIVE: the
                              compositor gave it the keyboard focus); prints the windows
                              active then (program: title)
  wait-chooser-active         the same for the chooser's window
  wait-chooser                wait until the chooser shows (a window titled "Choose How to
                              Send"); prints the ways it offers (its radio buttons), in order
  pick:NAME                   choose the way NAME in the chooser (click its radio button)
  wait-chooser-gone           wait until no chooser is left
  open:NAME                   press the menu button NAME (the sheet's From), until its menu shows
  state:NAME                  prints whether NAME is showing, enabled, checked, focused, editable,
                              where it is in its window, and a field's text
  focused                     prints the name of the focused control
  wait-text:NAME:TEXT         wait until the field NAME holds TEXT (what was typed there,
                              taken by the window)
  wait-no:NAME                wait until no control of the sheet is named NAME
  names                       prints every named control of the sheet (role: name)
  windows                     prints every window on the accessibility bus (program: title)
  past-the-end:PROGRAM        asks PROGRAM's application (its name on the accessibility bus)
                              for its windows at indexes past the last (as a screen reader may
                              while a window goes); prints the answers
  press-past-the-end:TITLE:NAME:PROGRAM
                              press the push button NAME of the window TITLE and, for the
                              second the press takes (GTK clicks a button it is asked to
                              press a quarter of a second later), flood PROGRAM's
                              application with requests for its window past the last: the
                              program answers them before any work the click left for its
                              main loop's idle moments; then asks for the windows around
                              the last once more, and prints the answers (none, as GTK
                              gives when its last window closed, is one); fails when the
                              program left the bus
  shot:PATH                   a screenshot of the screen (ImageMagick import), once it stayed
                              the same for 0.15 s (the last change is drawn)
No step sleeps for a fixed time: each waits for what it did to show, or the next step
waits for what it needs. A step that cannot be done (a control not found within --timeout seconds) ends the driver
with status 2 and the reason on standard error.
"""
import json
import os
import subprocess
import sys
import time

import pyatspi

TIMEOUT = 15.0
args = sys.argv[1:]
if args and args[0] == "--timeout":
    TIMEOUT = float(args[1])
    args = args[2:]

# Xvfb's default keymap (evdev keycodes).
KEYCODES = {"Control": 37, "Shift": 50, "Return": 36, "Escape": 9, "Tab": 23, "a": 38, "s": 39, "slash": 61, "End": 115, "Down": 116, "Up": 111,
            "Home": 110, "BackSpace": 22, "space": 65}


STARTED = time.time()


def say(**fields):
    # "seconds": since the driver started, to see where a slow test spends its time.
    fields["seconds"] = round(time.time() - STARTED, 3)
    print(json.dumps(fields), flush=True)


def fail(message):
    print("sheet-driver: " + message, file=sys.stderr, flush=True)
    print("sheet-driver: " + x_state(), file=sys.stderr, flush=True)
    sys.exit(2)


def x_state():
    """What the X server shows at a failure, for its message: the window with the input focus
    and the shown windows (xdotool), and a screenshot of the screen where the test runs put
    theirs ($SHEET_DRIVER_FAILURE_SHOT)."""
    def run(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=5).stdout.strip()
        except Exception as error:  # noqa: BLE001 (only a message is made of it)
            return "(%s)" % error
    focus = run(["xdotool", "getwindowfocus", "getwindowname"])
    shown = run(["sh", "-c", "for w in $(xdotool search --onlyvisible --name .); do xdotool getwindowname $w; done"])
    said = "X input focus: %r; shown windows: %s" % (focus, ", ".join(repr(name) for name in shown.split("\n") if name))
    shot = os.environ.get("SHEET_DRIVER_FAILURE_SHOT")
    if shot:
        run(["import", "-window", "root", shot])
        said += "; screenshot: " + shot
    return said


# What a sheet is called and its Send button, in the language it runs in (sheet-words:).
NEW_TITLE, TITLE_PREFIX, SEND = "New Message", "Message to ", "Send"


def sheets():
    desktop = pyatspi.Registry.getDesktop(0)
    found = []
    for i in range(desktop.childCount):
        try:
            app = desktop[i]
            if app is None:
                continue
            for j in range(app.childCount):
                window = app[j]
                if window is not None and (window.name == NEW_TITLE or window.name.startswith(TITLE_PREFIX)):
                    found.append(window)
        except Exception:
            continue
    return found


def accessibility_bus_address():
    """The accessibility bus's address, as libatspi finds it: AT_SPI_BUS_ADDRESS, else the
    session bus's org.a11y.Bus."""
    if os.environ.get("AT_SPI_BUS_ADDRESS"):
        return os.environ["AT_SPI_BUS_ADDRESS"]
    import dbus
    launcher = dbus.SessionBus().get_object("org.a11y.Bus", "/org/a11y/bus")
    return str(launcher.GetAddress(dbus_interface="org.a11y.Bus"))


def applications():
    desktop = pyatspi.Registry.getDesktop(0)
    found = []
    for i in range(desktop.childCount):
        try:
            if desktop[i] is not None:
                found.append(desktop[i])
        except Exception:
            continue
    return found


def windows_named(title):
    desktop = pyatspi.Registry.getDesktop(0)
    found = []
    for i in range(desktop.childCount):
        try:
            app = desktop[i]
            for j in range(app.childCount):
                if app[j].name == title:
                    found.append(app[j])
        except Exception:
            continue
    return found


def walk(node):
    yield node
    try:
        count = node.childCount
    except Exception:
        return
    for i in range(count):
        # A window going away (a dialog that just closed) takes its nodes with it.
        try:
            child = node[i]
        except Exception:
            continue
        if child is not None:
            yield from walk(child)


def named_controls():
    """Every named control of the open sheets, as "role: name" (labels left out)."""
    named = []
    for root in sheets():
        for node in walk(root):
            try:
                if node is not root and node.name and node.getRoleName() != "label":
                    named.append("%s: %s" % (node.getRoleName(), node.name))
            except Exception:
                continue
    return named


CHOOSER = "Choose How to Send"
# A GtkCheckButton in a group: a radio button, which GTK 4.8 still calls a check box.
CHOICE_ROLES = ["radio button", "check box"]
# The dialogs whose controls are found besides the sheets': the sheet's own, and any window
# waited for with wait-window (a dialog in another language).
DIALOGS = ["Save this message as a draft?", "Attach Files", "Set Up Sending", CHOOSER, "Send at"]


def roots():
    return sheets() + [window for title in DIALOGS for window in windows_named(title)]


def chooser_ways():
    return [node.name for root in windows_named(CHOOSER) for node in walk(root)
            if node is not None and node.getRoleName() in CHOICE_ROLES]


def find(name, roles=None, prefix=False, within=None):
    deadline = time.time() + TIMEOUT
    while True:
        for root in (roots() if within is None else windows_named(within)):
            for node in walk(root):
                try:
                    if node is root:
                        continue
                    matches = node.name.startswith(name) if prefix else node.name == name
                    # GTK leaves hidden widgets out of the tree: what is found is on screen.
                    if matches and node.name and (roles is None or node.getRoleName() in roles):
                        return node
                except Exception:
                    continue
        if time.time() > deadline:
            fail("no control named %r%s; the labels shown: %s"
                 % (name, "" if roles is None else " (%s)" % ", ".join(roles), json.dumps(shown_labels())))
        time.sleep(0.05)


def menu_shown():
    """Whether a menu's item is on screen (a context menu is open)."""
    for root in roots():
        for node in walk(root):
            try:
                if node is not root and node.getRoleName() in ("menu item", "check menu item", "radio menu item"):
                    return True
            except Exception:
                continue
    return False


def shown_labels():
    """The text of every label of the sheets and dialogs, for a step that failed to say what
    the person would have read instead."""
    labels = []
    for root in roots():
        for node in walk(root):
            try:
                if node is not root and node.getRoleName() == "label" and node.name:
                    labels.append(node.name)
            except Exception:
                continue
    return labels


def press_keys(keys):
    names = keys.split("+")
    codes = [KEYCODES.get("Control" if n == "ctrl" else "Shift" if n == "shift" else n) for n in names]
    if None in codes:
        fail("unknown key in %r" % keys)
    for code in codes:
        pyatspi.Registry.generateKeyboardEvent(code, None, pyatspi.KEY_PRESS)
    for code in reversed(codes):
        pyatspi.Registry.generateKeyboardEvent(code, None, pyatspi.KEY_RELEASE)


def click(node, left=False):
    # Window coordinates: GTK 4 does not know where its window is on the screen, and under
    # Xvfb without a window manager the sheet sits at the top left, where they are the same.
    extents = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    x = extents.x + (8 if left else min(extents.width // 2, 40))
    y = extents.y + min(extents.height // 2, 14)
    pyatspi.Registry.generateMouseEvent(x, y, "b1c")


def type_text(text):
    # A line at a time, Return between: the registry turns each character of a string into
    # its keysym's key events, but has no keysym for a line break.
    for number, line in enumerate(text.split("\n")):
        if number > 0:
            press_keys("Return")
        for chunk in [line[i:i + 20] for i in range(0, len(line), 20)]:
            pyatspi.Registry.generateKeyboardEvent(0, chunk, pyatspi.KEY_STRING)


def wait_holding(node, text, what):
    """Until the field `node` holds `text` (typed keys reach the window after the registry
    sends them, and an action asked over AT-SPI must not overtake them)."""
    deadline = time.time() + TIMEOUT
    while text not in (text_of(node) or ""):
        if time.time() > deadline:
            fail("%s holds %r, not the %r typed" % (what, text_of(node), text))
        time.sleep(0.03)


def view():
    """What a person sees: every window of every program on the accessibility bus, and every
    control of the sheets and dialogs with its name, states and text."""
    seen = []
    for app in applications():
        try:
            seen += [("window", app.name, app[j].name) for j in range(app.childCount)]
        except Exception:
            continue
    for root in roots():
        for node in walk(root):
            try:
                seen.append((node.getRoleName(), node.name, tuple(sorted(node.getState().getStates())), text_of(node)))
            except Exception:
                continue
    return seen


# A key press (key:) whose effect no step has waited for yet: its keys and the view before it.
PRESSED = None


# How long a key press may show nothing before the next step goes on all the same: a key
# that does nothing is a key too (Space on the way the chooser has chosen already).
UNCHANGED = 2.0

# How long the screen must stay the same before a screenshot is taken of it (shot:).
STILL = 0.15


def settle():
    """Until the last key press changed what a person sees, or UNCHANGED seconds showed that
    it changes nothing: keys go through the X server, a step's questions and actions through
    the accessibility bus, and one must not overtake the other."""
    global PRESSED
    if PRESSED is None:
        return
    before = PRESSED[1]
    PRESSED = None
    deadline = time.time() + UNCHANGED
    while view() == before and time.time() < deadline:
        time.sleep(0.03)


def wait_menu(what):
    deadline = time.time() + TIMEOUT
    while not menu_shown():
        if time.time() > deadline:
            fail("%s opened no menu" % what)
        time.sleep(0.03)


def wait_focused(node):
    deadline = time.time() + TIMEOUT
    while not node.getState().contains(pyatspi.STATE_FOCUSED):
        if time.time() > deadline:
            fail("%r did not take the focus" % node.name)
        time.sleep(0.03)


def state_of(node):
    states = node.getState()
    found = {"name": node.name, "role": node.getRoleName(),
             "showing": states.contains(pyatspi.STATE_SHOWING),
             "enabled": states.contains(pyatspi.STATE_SENSITIVE),
             "checked": states.contains(pyatspi.STATE_CHECKED),
             "focused": states.contains(pyatspi.STATE_FOCUSED),
             "editable": states.contains(pyatspi.STATE_EDITABLE)}
    # Where it is in its window (the header bar is at the top), and a field's text.
    try:
        extents = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        found["x"], found["y"] = extents.x, extents.y
    except Exception:
        pass
    text = text_of(node)
    if text is not None:
        found["text"] = text
    return found


def underlined(field):
    """The words of a text control underlined as misspelt (its "underline:error" runs)."""
    content = field.queryText()
    words, offset = [], 0
    while offset < content.characterCount:
        attributes, start, end = content.getAttributeRun(offset, False)
        if "underline:error" in attributes:
            words.append(content.getText(start, end))
        offset = max(end, offset + 1)
    return words


def text_of(node):
    """A field's text, or None while its program does not answer."""
    try:
        text = node.queryText()
        return text.getText(0, text.characterCount)
    except Exception:
        return None


def focused():
    for root in roots():
        for node in walk(root):
            try:
                if node is not root and node.getState().contains(pyatspi.STATE_FOCUSED):
                    return node
            except Exception:
                continue
    return None


FIELDS = ["text", "entry", "password text"]

for step in args:
    kind, _, rest = step.partition(":")
    # Every step first waits for the last key press to show: a wait-… step's sign may be
    # there already from before it (the file chooser that just closed is still listed while
    # Ctrl+Shift+A opens the next).
    settle()
    if kind == "wait-sheet":
        deadline = time.time() + TIMEOUT
        while not sheets():
            if time.time() > deadline:
                fail("no sheet appeared")
            time.sleep(0.05)
        find(SEND, ["push button"])
        say(step=kind, title=sheets()[0].name)
    elif kind == "sheet-words":
        NEW_TITLE, TITLE_PREFIX, SEND = rest.split(":")
    elif kind in ("type", "append"):
        name, _, text = rest.partition(":")
        field = find(name, FIELDS)
        click(field)
        wait_focused(field)
        press_keys("ctrl+End" if kind == "append" and name == "Message" else "End" if kind == "append" else "ctrl+a")
        type_text(text)
        wait_holding(field, text, "the field %r" % name)
        say(step=kind, field=name)
    elif kind == "tick":
        box = find(rest, ["check box"])
        before = box.getState().contains(pyatspi.STATE_CHECKED)
        # GTK 4.8 offers no action on a check box: it is clicked, as a person would.
        click(box, left=True)
        deadline = time.time() + TIMEOUT
        while box.getState().contains(pyatspi.STATE_CHECKED) == before:
            if time.time() > deadline:
                fail("%r did not change when clicked" % rest)
            time.sleep(0.03)
        say(step=kind, **state_of(box))
    elif kind in ("press", "press-in"):
        title, name = rest.split(":", 1) if kind == "press-in" else (None, rest)
        button = find(name, ["push button"], within=title)
        if not button.getState().contains(pyatspi.STATE_SENSITIVE):
            fail("%r is not enabled" % rest)
        button.queryAction().doAction(0)
        say(step=kind, button=name)
    elif kind in ("menu", "menu-of", "open-menu"):
        opener_name, item_name = ("Main Menu", rest) if kind == "menu" else (rest, None) if kind == "open-menu" \
            else rest.split(":", 1)
        rest = item_name
        # GtkMenuButton is named twice in the tree (itself and its inner toggle): the one
        # that can be pressed opens the menu.
        deadline = time.time() + TIMEOUT
        while True:
            openers = [node for root in sheets() for node in walk(root) if node.name == opener_name]
            actionable = [node for node in openers if node.queryAction().nActions > 0]
            if actionable:
                break
            if time.time() > deadline:
                fail("no %s button to press" % opener_name)
            time.sleep(0.05)
        actionable[0].queryAction().doAction(0)
        if item_name is None:
            wait_menu(opener_name)
            say(step=kind, button=opener_name)
            continue
        item = find(rest, ["menu item", "push button", "check menu item"])
        if not item.getState().contains(pyatspi.STATE_SENSITIVE):
            fail("%r is not enabled" % rest)
        item.queryAction().doAction(0)
        say(step=kind, item=rest)
    elif kind == "right-click":
        name, _, text = rest.partition(":")
        field = find(name, ["text"])
        content = field.queryText()
        whole = content.getText(0, content.characterCount)
        offset = whole.find(text)
        if offset < 0:
            fail("no %r in %r" % (text, name))
        # Window coordinates are the screen's here, as in click().
        x, y, width, height = content.getCharacterExtents(offset + 1, pyatspi.WINDOW_COORDS)
        # Until its menu shows: on a loaded machine a click that comes while the last menu
        # is still closing is not taken as one. First the last one is let close.
        closed = time.time() + 3
        while menu_shown() and time.time() < closed:
            time.sleep(0.05)
        for attempt in range(3):
            pyatspi.Registry.generateMouseEvent(x + width // 2, y + height // 2, "b3c")
            shown = time.time() + 3
            while not menu_shown() and time.time() < shown:
                time.sleep(0.05)
            if menu_shown():
                break
        say(step=kind, field=name, text=text, clicks=attempt + 1)
    elif kind == "choose":
        item = find(rest, ["menu item", "push button", "check menu item", "radio menu item"])
        item.queryAction().doAction(0)
        say(step=kind, item=rest)
    elif kind == "underlined":
        say(step=kind, field=rest, words=underlined(find(rest, ["text"])))
    elif kind == "wait-underlined":
        name, _, wanted = rest.partition(":")
        field = find(name, ["text"])
        present = [word for word in wanted.split(",") if word and not word.startswith("-")]
        absent = [word[1:] for word in wanted.split(",") if word.startswith("-")]
        deadline = time.time() + TIMEOUT
        words = underlined(field)
        while not (all(word in words for word in present) and not any(word in words for word in absent)):
            if time.time() > deadline:
                fail("the field %r has %r underlined, not %r" % (name, words, wanted))
            time.sleep(0.05)
            words = underlined(field)
        say(step="underlined", field=name, words=words)
    elif kind == "drop":
        name, _, path = rest.partition(":")
        extents = find(name).queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        # Window coordinates are the screen's here, as in click().
        to = "%d,%d" % (extents.x + extents.width // 2, extents.y + extents.height // 2)
        helper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "drag-file.py")
        drag = subprocess.run([sys.executable, helper, "--to", to, "--timeout", str(TIMEOUT), path],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if drag.returncode != 0:
            fail("dropping %r on %r at %s: %s%s" % (path, name, to, drag.stdout, drag.stderr))
        say(step=kind, target=name, at=to, **json.loads(drag.stdout))
    elif kind == "key":
        PRESSED = (rest, view())
        press_keys(rest)
        say(step=kind, keys=rest)
    elif kind == "text":
        node = focused()
        type_text(rest)
        if node is not None and text_of(node) is not None:
            wait_holding(node, rest.split("\n")[-1], "the focused field %r" % node.name)
        say(step=kind)
    elif kind == "location":
        # GTK's file chooser: a "/" opens its location field (or goes into it, when the
        # chooser remembered it open); the path is typed once that field has the focus, and
        # Return pressed once the field holds all of it (typed at once, a busy chooser loses
        # the first keys while it makes the field). The "/" goes to the window that has the
        # keyboard, so it waits until that is the chooser (a loaded window manager gives it
        # the focus a moment after it maps), and it is pressed again while no field of the
        # chooser has the focus (a key pressed as the chooser took the focus can be lost).
        deadline = time.time() + TIMEOUT

        def chooser_active():
            # GTK marks a control focused only in the window that has the keyboard.
            try:
                return any(found.getState().contains(pyatspi.STATE_FOCUSED)
                           for root in windows_named("Attach Files") for found in walk(root))
            except Exception:
                return False

        def give_chooser_the_keyboard():
            # The test desktop has no window manager: the X input focus stays where it was
            # (or follows the pointer) when the chooser maps, and may go back to the sheet.
            # It is given to the chooser's shown window itself (XSetInputFocus, through
            # xdotool), and the pointer put on it, where keys go while the focus follows it.
            subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "^Attach Files$", "windowfocus", "--sync", "%1",
                            "mousemove", "--window", "%1", "20", "20"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5, check=False)

        give_chooser_the_keyboard()
        while not chooser_active():
            if time.time() > deadline:
                fail("the file chooser never became the active window")
            time.sleep(0.05)
            # Given again: xdotool's --onlyvisible search dies of BadWindow when a window it
            # asks about is gone meanwhile (GTK's short-lived ones as the chooser maps).
            give_chooser_the_keyboard()
        press_keys("slash")
        slashed_at = time.time()

        def location_field():
            return next((found for root in windows_named("Attach Files") for found in walk(root)
                         if found is not root and found.getRoleName() in FIELDS
                         and found.getState().contains(pyatspi.STATE_FOCUSED)), None)

        # The field is looked for again each round: a busy chooser may make it anew (the
        # one found first then answers nothing), or lose keys; the path is typed again
        # (over what the field holds) when the field does not hold it after a while.
        held, typed_at = None, None
        while True:
            try:
                node = location_field()
            except Exception:
                node = None
            held = text_of(node) if node is not None else None
            if held == rest:
                break
            if time.time() > deadline:
                if node is not None:
                    fail("the location field holds %r, not %r" % (held, rest))
                focus = []
                for app in applications():
                    try:
                        for j in range(app.childCount):
                            window = app[j]
                            focus += ["%s%s: %s" % (window.name, " (active)" if window.getState().contains(pyatspi.STATE_ACTIVE)
                                                    else "", ", ".join("%s %r" % (found.getRoleName(), found.name)
                                                                      for found in walk(window) if found is not window
                                                                      and found.getState().contains(pyatspi.STATE_FOCUSED)))]
                    except Exception:
                        continue
                fail("the file chooser's location field did not take the focus; windows and their focused controls: %s"
                     % "; ".join(focus))
            if node is None and time.time() - slashed_at > 2.0:
                if not chooser_active():
                    give_chooser_the_keyboard()
                press_keys("slash")
                slashed_at = time.time()
            if node is not None and (typed_at is None or time.time() - typed_at > 3.0):
                press_keys("ctrl+a")
                type_text(rest)
                typed_at = time.time()
            time.sleep(0.05)
        press_keys("Return")
        say(step=kind, path=rest)
    elif kind == "wait-label":
        label = find(rest, ["label"], prefix=True)
        say(step=kind, text=label.name)
    elif kind == "wait-window":
        deadline = time.time() + TIMEOUT
        while not windows_named(rest):
            if time.time() > deadline:
                fail("no window %r appeared" % rest)
            time.sleep(0.05)
        if rest not in DIALOGS:
            DIALOGS.append(rest)
        say(step=kind, title=rest)
    elif kind in ("wait-sheet-active", "wait-chooser-active"):
        def active_windows():
            found = []
            for app in applications():
                try:
                    found += ["%s: %s" % (app.name, app[j].name) for j in range(app.childCount)
                              if app[j].getState().contains(pyatspi.STATE_ACTIVE)]
                except Exception:
                    continue
            return found
        watched = sheets if kind == "wait-sheet-active" else lambda: windows_named(CHOOSER)
        deadline = time.time() + TIMEOUT
        while not any(s.getState().contains(pyatspi.STATE_ACTIVE) for s in watched()):
            if time.time() > deadline:
                fail("no %s became active; active: %r" % (kind[5:-7], active_windows()))
            time.sleep(0.05)
        say(step=kind, active=active_windows())
    elif kind == "wait-sheets":
        deadline = time.time() + TIMEOUT
        while len(sheets()) != int(rest):
            if time.time() > deadline:
                fail("%d sheets are open, not %s" % (len(sheets()), rest))
            time.sleep(0.05)
        say(step=kind, count=len(sheets()))
    elif kind == "wait-chooser":
        deadline = time.time() + TIMEOUT
        while not windows_named(CHOOSER) or not chooser_ways():
            if time.time() > deadline:
                fail("no chooser appeared")
            time.sleep(0.05)
        find("Always", ["push button"])
        say(step=kind, ways=chooser_ways())
    elif kind == "pick":
        choice = find(rest, CHOICE_ROLES)
        click(choice, left=True)
        deadline = time.time() + TIMEOUT
        while not choice.getState().contains(pyatspi.STATE_CHECKED):
            if time.time() > deadline:
                fail("%r was not chosen when clicked" % rest)
            time.sleep(0.03)
        say(step=kind, way=rest)
    elif kind == "wait-chooser-gone":
        deadline = time.time() + TIMEOUT
        while windows_named(CHOOSER):
            if time.time() > deadline:
                fail("the chooser is still open")
            time.sleep(0.05)
        say(step=kind)
    elif kind == "open":
        # A GtkMenuButton with a label of its own: the button named NAME holds the button
        # that opens its menu (named by its label; GTK 4.8 calls it a push button).
        deadline = time.time() + TIMEOUT
        while True:
            openers = [node for root in roots() for node in walk(root)
                       if node.name == rest and node.getRoleName() == "push button"]
            toggles = [child for node in openers for child in walk(node) if child is not node
                       and child.getRoleName() in ("toggle button", "push button") and child.queryAction().nActions > 0]
            if toggles:
                break
            if time.time() > deadline:
                described = []
                for node in openers:
                    for child in walk(node):
                        try:
                            action = child.queryAction()
                            names = [action.getName(i) for i in range(action.nActions)]
                        except Exception:
                            names = None
                        described.append("%s %r %s" % (child.getRoleName(), child.name, names))
                fail("no menu button %r to press: %s" % (rest, "; ".join(described)))
            time.sleep(0.05)
        toggles[0].queryAction().doAction(0)
        wait_menu(rest)
        say(step=kind, button=rest)
    elif kind == "wait-gone":
        deadline = time.time() + TIMEOUT
        while sheets():
            if time.time() > deadline:
                fail("the sheet is still open")
            time.sleep(0.05)
        say(step=kind)
    elif kind == "state":
        # A field's name is also the label beside it: the control itself is wanted.
        say(step=kind, **state_of(find(rest, ["text", "push button", "toggle button", "check box", "list", "list item", "menu item",
                                              "radio button", "combo box"])))
    elif kind == "wait-text":
        name, _, expected = rest.partition(":")
        field = find(name, FIELDS)
        deadline = time.time() + TIMEOUT
        while text_of(field) != expected:
            if time.time() > deadline:
                fail("the field %r holds %r, not %r" % (name, text_of(field), expected))
            time.sleep(0.05)
        say(step=kind, field=name)
    elif kind == "focused":
        node = focused()
        say(step=kind, name=node.name if node else None, role=node.getRoleName() if node else None)
    elif kind == "wait-no":
        # GTK tells the accessibility tree of a change after it is made: a control just
        # removed may still be listed for a moment.
        deadline = time.time() + TIMEOUT
        while any(entry.endswith(": " + rest) for entry in named_controls()):
            if time.time() > deadline:
                fail("a control named %r is still there" % rest)
            time.sleep(0.05)
        say(step=kind, name=rest)
    elif kind == "windows":
        desktop = pyatspi.Registry.getDesktop(0)
        found = []
        for i in range(desktop.childCount):
            try:
                app = desktop[i]
                found += ["%s: %s" % (app.name, app[j].name) for j in range(app.childCount)]
            except Exception:
                continue
        say(step=kind, windows=found)
    elif kind == "past-the-end":
        # What a screen reader may ask while a window comes or goes: the child of the
        # sheet's application at an index past its windows (Accessible.GetChildAtIndex).
        # The answer is printed; a program that crashes on it is gone from the bus.
        apps = [app for app in applications() if app.name == rest]
        if not apps:
            fail("no application named %r on the accessibility bus" % rest)
        app = apps[0]
        count = app.childCount
        answers = []
        for index in range(count, count + 3):
            child = app.getChildAtIndex(index)
            answers.append(child.name if child is not None else None)
        say(step=kind, windows=count, answers=answers)
    elif kind == "press-past-the-end":
        title, name, program = rest.split(":", 2)
        button = find(name, ["push button"], within=title)
        apps = [app for app in applications() if app.name == program]
        if not apps:
            fail("no application named %r on the accessibility bus" % program)
        app = apps[0]
        count = app.childCount
        # Raw D-Bus on the accessibility bus: pyatspi waits for each answer.
        import dbus
        bus = dbus.bus.BusConnection(accessibility_bus_address())
        # The button is the program's: its bus name is the application's (the button's own
        # `app` may not be known yet while its window is being made: None, seen once).
        press = dbus.lowlevel.MethodCallMessage(app.app.bus_name, button.path, "org.a11y.atspi.Action", "DoAction")
        press.append(0, signature="i")
        bus.send_message(press)
        # A question every fifth of a millisecond: one waits at every turn of the program's
        # main loop, without thousands more for it to answer afterwards.
        flood_until = time.time() + 1.0
        sent = 0
        while time.time() < flood_until:
            ask = dbus.lowlevel.MethodCallMessage(app.app.bus_name, app.path, "org.a11y.atspi.Accessible", "GetChildAtIndex")
            ask.append(count, signature="i")
            bus.send_message(ask)
            sent += 1
            time.sleep(0.0002)
        # Asked afresh (this connection may have more questions waiting than the bus lets
        # it): the windows around the last. GTK 4.8 does not answer for a window past the
        # last when it has none at all (its last one closed): no answer is an answer then.
        # A crash takes the program off the bus.
        fresh = dbus.bus.BusConnection(accessibility_bus_address())
        # Its window count, which it always answers, once it went through the flood.
        try:
            fresh.call_blocking(app.app.bus_name, app.path, "org.freedesktop.DBus.Properties", "Get", "ss",
                                ("org.a11y.atspi.Accessible", "ChildCount"), timeout=60)
        except dbus.exceptions.DBusException as error:
            fail("%s, asked for its windows after %r was pressed and %d requests for its window past the last: %s"
                 % (program, name, sent, error))
        answers = []
        for index in range(count - 1, count + 2):
            try:
                # The flood is answered already: an answer that comes, comes at once.
                reply = fresh.call_blocking(app.app.bus_name, app.path, "org.a11y.atspi.Accessible", "GetChildAtIndex",
                                            "i", (index,), timeout=0.3)
                answers.append(str(reply[1]))
            except dbus.exceptions.DBusException as error:
                answers.append("error: %s" % error.get_dbus_name())
        if not fresh.name_has_owner(app.app.bus_name):
            fail("%s left the accessibility bus (crashed) after %r was pressed and %d requests for its window past the last: %s"
                 % (program, name, sent, answers))
        say(step=kind, button=name, windows=count, asked=sent, answers=answers)
    elif kind == "names":
        say(step=kind, names=named_controls())
    elif kind == "shot":
        # Captured again, every 50 ms, until the screen has stayed the same for STILL
        # seconds: the last change is drawn. (A window just mapped shows what was on the
        # screen before it until it paints, and a popover paints a moment after its menu is
        # in the accessibility tree: two captures in a row can be the same and still of what
        # it covers.) The captures compared are the root window's pixels as X gives them
        # (python3-xlib, a few milliseconds each); the picture kept is then taken once by
        # ImageMagick (some 40 ms of CPU), which also draws what those leave out: a popover,
        # a window of a depth other than the screen's.
        from Xlib import X, display as xdisplay
        screen = xdisplay.Display()
        root = screen.screen().root
        size = root.get_geometry()
        deadline = time.time() + TIMEOUT
        image, since = None, time.time()
        while True:
            capture = root.get_image(0, 0, size.width, size.height, X.ZPixmap, 0xFFFFFFFF).data
            if capture != image:
                image, since = capture, time.time()
            elif time.time() - since >= STILL or time.time() > deadline:
                break
            time.sleep(0.05)
        screen.close()
        subprocess.run(["import", "-window", "root", "-define", "png:exclude-chunk=date,time", "png:" + rest], check=True)
        say(step=kind, path=rest)
    else:
        fail("unknown step %r" % step)
