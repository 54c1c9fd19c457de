#!/bin/sh
# xdg-email-hook.sh, installed beside mailto-route. xdg-email (xdg-utils) runs it, when
# it is found in PATH, with the one mailto: URL it built from its options, before it
# does anything else, and ends with its status.
#
# That URL is not always a local program's. Chromium, Chrome, Brave, Edge and Electron
# applications open a web page's mailto: links by running `xdg-email URL`, so a page's
# link can name any file in attach= (~/.ssh/id_rsa, ~/.gnupg, a browser profile).
# LibreOffice's senddoc runs `xdg-email URL` with the same form. So the hook says only
# where the URL came from (--xdg-email), and mailto-route looks at who ran xdg-email:
# the files of xdg-email's own --attach options and LibreOffice's document are attached;
# every other file is listed unticked in the sheet, naming the program that asked, and
# never handed to a mail program (README.md, Security).
exec '@EXEC@' open --xdg-email "$1"
