#!/usr/bin/python3
"""Starts the tests' servers from a Python that has imported them already: a Resources script
with a main() that prints what the test needs on one line and goes on detached (detach.py),
such as smtp_server.py, whose imports (asyncio, ssl, aiosmtpd) took a fresh python3 some 90 ms
of CPU each time, for the hundreds of servers a test run starts.

Each request is one line on standard input, a JSON array: the script's path and its
arguments. The script is imported once; for each request a child is forked that runs its
main() with those arguments, standard output a pipe whose text (PORT PID) is the answer, one
line on standard output (empty when the script printed nothing: it failed). Exits when
standard input closes: the test process is gone.
"""
import importlib.util
import json
import os
import sys

scripts = {}


def script(path):
    if path not in scripts:
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        scripts[path] = module
    return scripts[path]


def launch(argv):
    main = script(argv[0]).main
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        # As the script run afresh: its arguments, standard output to the answer, nothing on
        # standard input or error (main() then closes every other descriptor itself).
        status = 1
        try:
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(write_end, 1)
            os.dup2(null, 2)
            sys.argv = list(argv)
            status = main() or 0
        except SystemExit as exit:
            status = exit.code if isinstance(exit.code, int) else 1
        except BaseException:
            status = 1
        finally:
            try:
                sys.stdout.flush()
            finally:
                os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as answer:
        text = answer.read()
    os.waitpid(pid, 0)
    return " ".join(text.decode(errors="replace").split())


def serve():
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        try:
            answer = launch(json.loads(line))
        except Exception:  # noqa: BLE001 (an empty answer says the server did not start)
            answer = ""
        print(answer, flush=True)


if __name__ == "__main__":
    serve()
