#!/usr/bin/python3
"""Serves one directory over HTTP on 127.0.0.1 (a free port), as a web site serves the
page whose link a browser test clicks. Writes the port to the file given with --ready
once it serves, then serves until killed.

    web-page.py --dir DIRECTORY --ready FILE
"""
import argparse
import functools
import http.server
import os

parser = argparse.ArgumentParser()
parser.add_argument("--dir", required=True)
parser.add_argument("--ready", required=True)
options = parser.parse_args()

handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=options.dir)
server = http.server.HTTPServer(("127.0.0.1", 0), handler)
with open(options.ready + ".tmp", "w") as ready:
    ready.write(str(server.server_address[1]))
os.rename(options.ready + ".tmp", options.ready)
server.serve_forever()
