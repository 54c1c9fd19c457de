#!/usr/bin/python3
"""What Thunderbird reads in a `-compose` argument: an independent judge of the word
mailto-route builds, written from Thunderbird's own source (comm-central), not from ours.

It follows, step by step:
- `GetArgs` in mail/components/compose/content/MsgComposeCommands.js: a quote (' or ")
  opens a quoted value only right after `=`, and closes only when the same quote is
  followed by `,` or the end; commas outside quotes separate the fields; a field without
  `=` is skipped; walking the fields from the last to the first, each name is set, so the
  first occurrence of a name wins; a value in single quotes is taken as it is, any other
  (double quotes stripped, since bug 1980843) is decoded with `decodeURIComponent`, and
  kept as it is when that throws;
- `ComposeStartup` in the same file, for `attachment`: a list that starts with `file:` has
  each comma not followed by `file:` escaped as %2C (bug 900117, Thunderbird 2026), then
  the list is split on commas; each piece goes to nsICommandLine.resolveURI, and a
  `file:` URI is attached as the file its path names (nsIFileURL.file: the path
  percent-decoded), other URIs as they are.

Prints one JSON object: `fields` (name -> value as Thunderbird holds it), `attachments`
(the files or URIs attached, as today's Thunderbird splits the list) and
`attachmentsBefore900117` (as Thunderbird 115 to 140 split it: on every comma).

usage: thunderbird_compose.py COMPOSE-ARGUMENT
"""

import json
import re
import sys


def get_args(original):
    """MsgComposeCommands.js GetArgs."""
    separator = "\x01"
    data = []
    quote = ""
    previous = ""
    for index, char in enumerate(original):
        following = original[index + 1] if index < len(original) - 1 else ""
        if char == quote and following in (",", ""):
            quote = ""
            data.append(char)
        elif char in ("'", '"') and previous == "=":
            if quote == "":
                quote = char
            data.append(char)
        elif char == ",":
            data.append(separator if quote == "" else char)
        else:
            data.append(char)
        previous = char
    args = {}
    for pair in reversed("".join(data).split(separator)):
        position = pair.find("=")
        if position == -1:
            continue
        name, value = pair[:position], pair[position + 1:]
        if value.startswith("'") and value.endswith("'"):
            args[name] = value[1:-1]
        else:
            if value.startswith('"') and value.endswith('"'):
                value = value[1:-1]
            try:
                args[name] = decode_uri_component(value)
            except ValueError:
                args[name] = value
    return args


def decode_uri_component(text):
    """ECMAScript decodeURIComponent: every %XX decoded, the bytes read as UTF-8; a
    malformed escape or invalid UTF-8 throws (URIError)."""
    out = bytearray()
    index = 0
    while index < len(text):
        char = text[index]
        if char == "%":
            digits = text[index + 1:index + 3]
            if len(digits) != 2 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError("malformed escape")
            out.append(int(digits, 16))
            index += 3
        else:
            out.extend(char.encode("utf-8", "surrogatepass"))
            index += 1
    return out.decode("utf-8")  # raises UnicodeDecodeError, a ValueError


def percent_decode(text):
    """nsIFileURL.file: the path of a file: URI, its escapes decoded as bytes (returned
    as bytes: a Linux path need not be UTF-8)."""
    out = bytearray()
    index = 0
    raw = text.encode("utf-8")
    hexdigits = b"0123456789abcdefABCDEF"
    while index < len(raw):
        digits = raw[index + 1:index + 3]
        if raw[index] == 0x25 and len(digits) == 2 and all(d in hexdigits for d in digits):
            out.append(int(digits, 16))
            index += 3
        else:
            out.append(raw[index])
            index += 1
    return bytes(out)


def resolve(name):
    """nsICommandLine.resolveURI, then ComposeStartup: a word with a URI scheme is that
    URI, a file: URI attaching the file its path names; any other word is a file path
    (relative ones from the working directory)."""
    scheme, colon, _ = name.partition(":")
    if not colon or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        return {"file": name}
    if scheme.lower() == "file" and name[5:7] == "//":
        host, slash, path = name[7:].partition("/")
        if host in ("", "localhost"):
            path = percent_decode(slash + path)
            # The path as text (a byte that is not UTF-8 shown as U+FFFD, which JSON can
            # carry), and its bytes in hex.
            return {"file": path.decode("utf-8", "replace"), "fileHex": path.hex()}
    return {"uri": name}


def attachments(value, split_like_900117):
    if split_like_900117 and value.lower().startswith("file:"):
        processed = []
        for index, char in enumerate(value):
            if char == "," and not value[index + 1:index + 6].lower() == "file:":
                processed.append("%2C")
            else:
                processed.append(char)
        value = "".join(processed)
    return [resolve(name) for name in value.split(",")]


def main():
    args = get_args(sys.argv[1])
    attachment = args.get("attachment")
    print(json.dumps({
        "fields": args,
        "attachments": attachments(attachment, True) if attachment else [],
        "attachmentsBefore900117": attachments(attachment, False) if attachment else [],
    }))


if __name__ == "__main__":
    main()
