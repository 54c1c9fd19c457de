#!/usr/bin/python3
"""Runs a command on a new pseudo-terminal (its controlling terminal, so /dev/tty is it)
and answers its prompts like a person would.

  tty-driver.py [--prompt TEXT] [--answer LINE]... [--typeahead LINE] [--timeout S] -- COMMAND...

Each --answer is typed (with Enter) once the prompt TEXT (default "? ") has appeared one
more time; EOF types Ctrl-D instead. --typeahead is typed at once, before any prompt.
Prints everything the terminal showed and exits with the command's status (124 when it
had to be killed at --timeout).
"""
import argparse
import os
import pty
import select
import signal
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--prompt", default="? ")
    parser.add_argument("--answer", action="append", default=[])
    parser.add_argument("--typeahead")
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command

    # The command starts only once the typeahead is on its terminal: typed "at once" must
    # mean before the command could ask (on a loaded machine the command, started first,
    # once asked and dropped what was typed before, and then read the typeahead as an answer).
    typed, go = os.pipe()
    pid, master = pty.fork()
    if pid == 0:
        os.close(go)
        os.read(typed, 1)
        os.close(typed)
        # As a shell would start it: no signal blocked (a test thread's mask is inherited).
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        os.execvp(command[0], command)

    os.close(typed)
    if options.typeahead is not None:
        os.write(master, options.typeahead.encode() + b"\n")
    os.write(go, b"x")
    os.close(go)
    output = b""
    answers = list(options.answer)
    given = 0
    deadline = time.monotonic() + options.timeout
    status = None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                # The terminal closed: the command is exiting; wait for it below.
                while status is None and time.monotonic() < deadline:
                    finished, code = os.waitpid(pid, os.WNOHANG)
                    if finished:
                        status = code
                    else:
                        time.sleep(0.01)
                break
            output += chunk
        prompts = output.decode("utf-8", "replace").count(options.prompt)
        if answers and prompts > given:
            answer = answers.pop(0)
            given += 1
            os.write(master, b"\x04" if answer == "EOF" else answer.encode() + b"\n")
        finished, code = os.waitpid(pid, os.WNOHANG)
        if finished:
            status = code
            # Whatever is still buffered on the terminal.
            while select.select([master], [], [], 0.05)[0]:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                output += chunk
            break
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        sys.stdout.write(output.decode("utf-8", "replace"))
        sys.exit(124)
    sys.stdout.write(output.decode("utf-8", "replace"))
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
