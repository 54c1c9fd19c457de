#!/usr/bin/python3
"""LibreOffice's "Email Document", on a document opened in a running LibreOffice.

Connects through Python-UNO (Debian's python3-uno) to the soffice started with
--accept=pipe,name=PIPE;urp;, opens DOCUMENT in it and dispatches .uno:SendMail: the
command File > Send > Email Document runs, which saves the document into LibreOffice's
temporary directory and runs senddoc with it (sfx2's SfxMailModel, shell's cmdmail).
Prints "sent" once the dispatch returned.

Usage: libreoffice-email-document.py --pipe PIPE --timeout SECONDS DOCUMENT
"""
import argparse
import sys
import time

import uno
from com.sun.star.connection import NoConnectException


def connect(pipe, timeout):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + timeout
    while True:
        try:
            return resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
        except NoConnectException:
            # soffice has not opened its pipe yet: it takes seconds to start, and says
            # nothing when it has.
            if time.monotonic() > deadline:
                sys.exit(f"LibreOffice did not open its pipe {pipe} within {timeout} s")
            time.sleep(0.1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipe", required=True)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("document")
    options = parser.parse_args()
    context = connect(options.pipe, options.timeout)
    manager = context.ServiceManager
    desktop = manager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
    document = desktop.loadComponentFromURL(uno.systemPathToFileUrl(options.document), "_blank", 0, ())
    frame = document.getCurrentController().getFrame()
    dispatcher = manager.createInstanceWithContext("com.sun.star.frame.DispatchHelper", context)
    dispatcher.executeDispatch(frame, ".uno:SendMail", "", 0, ())
    print("sent", flush=True)


main()
