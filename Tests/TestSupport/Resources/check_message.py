#!/usr/bin/python3
"""Reads one received message with Python's own parser (email, policy=default) and prints
what the tests check, as JSON: decoded headers, the display name and address of each
mailbox in From, To and Cc, every part's type, file name, text or SHA-256, and the
longest line; the defects Python found in the message and in each header field, the Date
as Python parsed it (ISO 8601, null when it could not), and whether the header block is
ASCII (rule 10: what goes on the wire is the same in every locale).

  check_message.py FILE [--utf8-headers]

--utf8-headers: the header fields are UTF-8 (RFC 6532, a message sent with SMTPUTF8), read
as text: Python's parser of bytes takes every non-ASCII octet of a header for an
undecodable one."""
import email
import hashlib
import json
import sys
from email import policy

raw = open(sys.argv[1], "rb").read()
if "--utf8-headers" in sys.argv[2:]:
    message = email.message_from_string(raw.decode("utf-8"), policy=policy.default)
else:
    message = email.message_from_bytes(raw, policy=policy.default)
headers = {}
for name in ["From", "To", "Cc", "Bcc", "Subject", "Date", "Message-ID", "MIME-Version", "In-Reply-To", "References", "Keywords"]:
    value = message.get(name)
    if value is not None:
        headers[name] = str(value)
addresses = {}
for name in ["From", "To", "Cc"]:
    value = message.get(name)
    if value is not None:
        addresses[name] = [{"name": a.display_name, "address": a.addr_spec} for a in value.addresses]
parts = []
for part in message.walk():
    if part.is_multipart():
        parts.append({"type": part.get_content_type()})
        continue
    entry = {"type": part.get_content_type(), "filename": part.get_filename(),
             "disposition": part.get_content_disposition()}
    payload = part.get_payload(decode=True)
    entry["sha256"] = hashlib.sha256(payload).hexdigest()
    entry["size"] = len(payload)
    if part.get_content_maintype() == "text" and entry["disposition"] != "attachment":
        entry["text"] = part.get_content()
    parts.append(entry)
lines = raw.split(b"\r\n")
# The fields a message of mailto-route's has (parsing every field of a hand-made one with a
# 10 MB line would take minutes).
checked = ["From", "To", "Cc", "Bcc", "Subject", "Date", "Message-ID", "MIME-Version", "In-Reply-To", "References",
           "Keywords", "Content-Type", "Content-Disposition", "Content-Transfer-Encoding"]
header_defects = [f"{name}: {defect}" for name in checked for value in message.get_all(name, [])
                  for defect in getattr(value, "defects", [])]
date = message.get("Date")
parsed_date = getattr(date, "datetime", None) if date is not None else None
head = raw.split(b"\r\n\r\n", 1)[0]
print(json.dumps({
    "headers": headers,
    "addresses": addresses,
    "parts": parts,
    "defects": [str(d) for d in message.defects] + [str(d) for p in message.walk() for d in p.defects],
    "longestLine": max(len(l) for l in lines),
    "bareLF": b"\n" in raw.replace(b"\r\n", b""),
    "headerDefects": header_defects,
    "date": parsed_date.isoformat() if parsed_date is not None else None,
    "headerASCII": all(byte < 128 for byte in head),
}))
