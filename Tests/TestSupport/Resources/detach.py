"""What every test server of Tests/TestSupport does once it listens: print its port and the
pid the test stops it with, and go on detached, holding none of the test process's
descriptors or signal settings (Swift's launchDetached reads the one line)."""
import json
import os
import signal
import threading


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


def json_log(path):
    """A function that appends one JSON line to `path` per call, from any thread."""
    lock = threading.Lock()

    def log(entry):
        with lock, open(path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    return log
