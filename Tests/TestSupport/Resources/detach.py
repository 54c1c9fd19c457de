"""What every test server of Tests/TestSupport does once it listens: print its port and the
pid the test stops it with, and go on detached, holding none of the test process's
descriptors or signal settings (Swift's launchDetached reads the one line)."""
import json
import os
import signal
import socket
import sys
import threading
import traceback


def detach(port):
    """Forks: the launcher prints PORT PID and exits; the child, in a session of its own,
    serves on with SIGTERM ending it (the test process's threads block or ignore signals, and
    both are inherited across exec) and standard streams on /dev/null."""
    pid = os.fork()
    if pid:
        print(port, pid, flush=True)
        os._exit(0)
    os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(null, descriptor)


def free_ports(count):
    """`count` different loopback ports that were free a moment ago, for a server that cannot
    be given port 0 (Postfix's and Dovecot's configurations name theirs). All are held until
    all are picked: one closed before the next was asked for could come back again (Dovecot
    once got the same port for IMAP and IMAPS: "duplicate listener")."""
    probes = []
    try:
        for _ in range(count):
            probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            probes.append(probe)
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


def free_port():
    """One port of `free_ports`."""
    return free_ports(1)[0]


def json_log(path):
    """A function that appends one JSON line to `path` per call, from any thread."""
    lock = threading.Lock()

    def log(entry):
        with lock, open(path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    return log


def supervise_detached(name, directory, words, supervise):
    """For a server that a supervisor of its own runs (Postfix, Dovecot): forks, with none of
    the test process's descriptors. The launcher waits for the supervisor's ready line (`words`
    numbers: its ports), prints it and the supervisor's pid, and returns 0; or says why not
    (`name: …`) and returns 1. The supervisor, in a session of its own with the default signal
    handling back, standard streams on /dev/null and errors in DIRECTORY/supervisor.log, runs
    `supervise(report, log)`, which writes the ready line to `report`, and exits with what it
    returns."""
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    ready, report = os.pipe()
    pid = os.fork()
    if pid:
        os.close(report)
        with os.fdopen(ready, "rb") as f:
            text = f.read().decode(errors="replace").strip()
        if len(text.split()) == words and all(word.isdigit() for word in text.split()):
            print(text, pid, flush=True)
            return 0
        print("%s: %s" % (name, text or "the supervisor died"), file=sys.stderr)
        return 1
    os.close(ready)
    os.setsid()
    # The test process's threads block or ignore signals, and both are inherited across
    # exec: make SIGTERM reach this supervisor again.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    log = open(os.path.join(directory, "supervisor.log"), "a")
    os.dup2(log.fileno(), 2)
    os.close(null)
    try:
        status = supervise(os.fdopen(report, "wb"), log)
    except Exception as error:
        traceback.print_exc(file=log)
        try:
            os.write(report, ("error: %s\n" % error).encode())
        except OSError:
            pass
        status = 1
    os._exit(status)
