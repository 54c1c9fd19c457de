#!/bin/sh
# xdg-email-hook.sh, installed beside mailto-route. xdg-email (xdg-utils) runs it, when
# it is found in PATH, with the one mailto: URL it built from its options, before it
# does anything else, and ends with its status. That URL comes from a program on this
# machine: `xdg-email --attach FILE` (what LibreOffice's "Send document as e-mail", file
# managers' "Send to" and scripts run) puts attach= with the file's absolute path in it.
# A web page never comes this way: its links reach mailto-route through the desktop
# file, `mailto-route open %u`. So here the files are attached (README.md, Security).
exec '@EXEC@' open --local "$1"
