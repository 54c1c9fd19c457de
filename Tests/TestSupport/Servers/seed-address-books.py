#!/usr/bin/python3
"""Fills Evolution Data Server's address books on the session bus at
DBUS_SESSION_BUS_ADDRESS through Debian's own client library (libebook, through
gir1.2-ebook-1.2): the books an address completion then reads, written by the library
Evolution and GNOME Contacts write them with, not by ours.

  seed-address-books.py BOOKS.json

BOOKS.json is a list of books:

  [{"name": "Personal", "contacts": [...]},
   {"name": "Work", "autocomplete": false, "contacts": [...]}]

"Personal" is EDS's own built-in book (uid system-address-book, in autocompletion by
default, as on a fresh desktop); any other name is a new local book, with ESourceAutocomplete's
include-me set to "autocomplete" (default true), made as Evolution's "New Address Book"
makes one (parent local-stub, backend local). Each contact: {"full_name", "emails": [...],
"nickname" (optional)}; setting the full name also sets the structured name (N), as
Evolution's editor does.

Prints one JSON object, {"books": {name: uid}, "contacts": {name: [uid, ...]}}.
"""
import json
import sys
import time

import gi

gi.require_version("EDataServer", "1.2")
gi.require_version("EBook", "1.2")
gi.require_version("EBookContacts", "1.2")
from gi.repository import EBook, EBookContacts, EDataServer, GLib  # noqa: E402

# e_book_client_connect_sync: (guint32) -1 is "do not wait for the backend to be
# connected" (0 would wait without end for a local book).
NO_WAIT = 0xFFFFFFFF


def make_contact(spec):
    contact = EBookContacts.Contact.new()
    contact.set_property("full-name", spec["full_name"])
    for index, email in enumerate(spec.get("emails", [])[:4]):
        contact.set_property("email-%d" % (index + 1), email)
    if spec.get("nickname"):
        contact.set_property("nickname", spec["nickname"])
    return contact


def wait_for_source(registry, uid, timeout=20):
    """A committed source reaches this registry through a D-Bus signal, dispatched in the
    main context that was the thread's default when the registry was made: iterate it."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        source = registry.ref_source(uid)
        if source is not None:
            return source
        context.iteration(False)
        time.sleep(0.01)
    raise SystemExit("seed-address-books: the new book %s never appeared in the registry" % uid)


def new_book(registry, name, autocomplete):
    source = EDataServer.Source.new(None, None)
    source.set_parent("local-stub")
    source.set_display_name(name)
    source.get_extension(EDataServer.SOURCE_EXTENSION_ADDRESS_BOOK).set_backend_name("local")
    source.get_extension(EDataServer.SOURCE_EXTENSION_AUTOCOMPLETE).set_include_me(autocomplete)
    registry.commit_source_sync(source, None)
    return wait_for_source(registry, source.get_uid())


def connect(source, timeout=20):
    """The address-book factory learns of a new source from its own registry, a signal
    later than ours: until then it answers "No such source for UID". Ask again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return EBook.BookClient.connect_sync(source, NO_WAIT, None)
        except GLib.Error as error:
            if "No such source" not in error.message or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        books = json.load(file)
    registry = EDataServer.SourceRegistry.new_sync(None)
    result = {"books": {}, "contacts": {}}
    for book in books:
        if book["name"] == "Personal":
            source = registry.ref_source("system-address-book")
        else:
            source = new_book(registry, book["name"], book.get("autocomplete", True))
        client = connect(source)
        contacts = [make_contact(spec) for spec in book.get("contacts", [])]
        uids = []
        if contacts:
            ok, uids = client.add_contacts_sync(contacts, EBookContacts.BookOperationFlags.NONE, None)
            if not ok:
                raise SystemExit("seed-address-books: adding contacts to %s failed" % book["name"])
        result["books"][book["name"]] = source.get_uid()
        result["contacts"][book["name"]] = list(uids)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
