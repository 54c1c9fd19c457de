#!/usr/bin/python3
"""A throwaway Dovecot IMAP server for mailto-route's tests, on 127.0.0.1 only.

Real Dovecot (Debian's dovecot-imapd) with its own configuration, base_dir, state and
mail in --dir: implicit TLS on one port, STARTTLS on another (plain-text logins refused
before it), the test CA's certificate, one user in a passwd-file, Maildir mail with a
`Drafts` mailbox that is `special_use = \\Drafts` (RFC 6154) and created at the first
login. With --token, Dovecot's oauth2 passdb also takes XOAUTH2 and OAUTHBEARER, checking
the token against a loopback introspection endpoint (RFC 7662) that this supervisor
serves: the one token given is active for the user, any other is not. The system's
/etc/dovecot is not read and no system service is touched. Needs root (Dovecot's master
starts its login processes as dovenull and the mail processes as nobody).

Prints "IMAPS_PORT IMAP_PORT PID" once both ports greet (and the imaps one completes a TLS
handshake), PID a supervisor that runs detached until SIGTERM or --lifetime seconds; on
SIGTERM it kills Dovecot and exits once none of its processes is left. If the server did
not come up, it prints nothing and exits 1 with the reason on stderr.

  --dir SCRATCH          an existing directory, short enough for Dovecot's sockets (its
                         path at most 60 bytes), the caller's to remove afterwards
  --cert/--key           PEM files of the server certificate
  --user NAME:PASSWORD   the one login (default jane@example.org:s3cret)
  --token TOKEN          an OAuth 2.0 access token the introspection endpoint takes for NAME
  --lifetime SECONDS     stop by itself after this long (default 600)

Mail: SCRATCH/home/NAME/Maildir; a draft stored in Drafts is a file in
SCRATCH/home/NAME/Maildir/.Drafts/{new,cur}/, its flags after ":2," (D for \\Draft).
Introspection requests are logged to SCRATCH/introspection.log (the token never is).
Logs: SCRATCH/dovecot.log, SCRATCH/supervisor.log.
"""
import argparse
import ctypes
import http.server
import json
import os
import pwd
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from detach import free_ports, supervise_detached  # noqa: E402

DOVECOT = "/usr/sbin/dovecot"
PR_SET_PDEATHSIG = 1
NOBODY = 65534


def quote(value):
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


def write(path, text, mode=0o644):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)


def introspection_server(token, user, log_path):
    """RFC 7662 token introspection on a free loopback port: `token` is active for `user`."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            form = urllib.parse.parse_qs(self.rfile.read(length).decode())
            active = form.get("token", [""])[0] == token
            with open(log_path, "a") as log:
                log.write("introspection: active=%s\n" % active)
            body = json.dumps({"active": True, "email": user} if active else {"active": False}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def configure(args, imaps, imap, introspection):
    directory = args.dir
    for name in ("run", "state", "home"):
        os.makedirs(os.path.join(directory, name), exist_ok=True)
    os.chown(os.path.join(directory, "home"), NOBODY, NOBODY)
    os.chmod(directory, 0o755)
    name, password = args.user.split(":", 1)
    passwd = os.path.join(directory, "passwd")
    write(passwd, "%s:{PLAIN}%s\n" % (name, password), 0o600)
    # Dovecot's auth worker reads it as its own user (dovecot), and nobody else may.
    dovecot_user = pwd.getpwnam("dovecot")
    os.chown(passwd, dovecot_user.pw_uid, dovecot_user.pw_gid)
    oauth = ""
    mechanisms = "plain login"
    if introspection:
        mechanisms += " xoauth2 oauthbearer"
        oauth_conf = os.path.join(directory, "oauth2.conf")
        write(oauth_conf, "introspection_url = http://127.0.0.1:%d/introspect\nintrospection_mode = post\n"
              "username_attribute = email\nactive_attribute = active\nactive_value = true\n" % introspection, 0o600)
        oauth = "passdb {\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n  args = %s\n}\n" % quote(oauth_conf)
    conf = """\
base_dir = {run}
state_dir = {state}
instance_name = imaptest-{imaps}
protocols = imap
listen = 127.0.0.1
log_path = {log}
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
disable_plaintext_auth = yes
auth_mechanisms = {mechanisms}
auth_failure_delay = 0
auth_verbose = yes
passdb {{
  driver = passwd-file
  args = {passwd}
  mechanisms = plain login
}}
{oauth}userdb {{
  driver = static
  args = uid={nobody} gid={nobody} home={home}/%u allow_all_users=yes
}}
first_valid_uid = 1
mail_location = maildir:~/Maildir
namespace inbox {{
  inbox = yes
  separator = /
  mailbox Drafts {{
    special_use = \\Drafts
    auto = create
  }}
}}
service imap-login {{
  inet_listener imap {{
    port = {imap}
  }}
  inet_listener imaps {{
    port = {imaps}
    ssl = yes
  }}
}}
# No growing delay after failed logins from 127.0.0.1 (Dovecot's auth penalty).
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
""".format(run=quote(os.path.join(directory, "run")), state=quote(os.path.join(directory, "state")),
           imaps=imaps, imap=imap, log=quote(os.path.join(directory, "dovecot.log")), cert=args.cert, key=args.key,
           mechanisms=mechanisms, passwd=quote(passwd), oauth=oauth, nobody=NOBODY,
           home=os.path.join(directory, "home"))
    path = os.path.join(directory, "dovecot.conf")
    write(path, conf)
    return path


def greets(port, tls):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
            if tls:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
                connection = context.wrap_socket(connection)
            return connection.recv(512).startswith(b"* OK")
    except (OSError, ssl.SSLError):
        return False


def die_with_parent():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


class Stop(Exception):
    pass


def supervise(args, report, log):
    started = time.monotonic()

    def note(text):
        log.write("%.3f %s\n" % (time.monotonic() - started, text))
        log.flush()

    introspection = None
    if args.token:
        introspection = introspection_server(args.token, args.user.split(":", 1)[0],
                                             os.path.join(args.dir, "introspection.log"))
    imaps, imap = free_ports(2)
    conf = configure(args, imaps, imap, introspection)
    environment = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "TZ": "UTC"}
    dovecot = subprocess.Popen([DOVECOT, "-F", "-c", conf], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                               env=environment, start_new_session=True, preexec_fn=die_with_parent)

    def kill_all():
        try:
            os.killpg(dovecot.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        dovecot.wait()
        # Its daemons are in its process group: wait until not one is left.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.killpg(dovecot.pid, signal.SIGKILL)
            except ProcessLookupError:
                break
            time.sleep(0.005)

    def on_term(signum, frame):
        raise Stop()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, on_term)
    try:
        deadline = time.monotonic() + 15
        while not (greets(imaps, True) and greets(imap, False)):
            if dovecot.poll() is not None:
                report.write(("error: dovecot exited with status %s; see %s\n" % (dovecot.returncode, args.dir)).encode())
                return 1
            if time.monotonic() > deadline:
                report.write(("error: dovecot did not greet; see %s\n" % args.dir).encode())
                return 1
            time.sleep(0.01)
        note("up on ports %d (imaps) and %d (imap)" % (imaps, imap))
        report.write(("%d %d\n" % (imaps, imap)).encode())
        report.close()
        end = time.monotonic() + args.lifetime
        while time.monotonic() < end and dovecot.poll() is None:
            time.sleep(0.2)
        note("lifetime over or dovecot gone")
    except Stop:
        note("stopping")
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        if not report.closed:
            report.close()
        kill_all()
        note("stopped")
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--user", default="jane@example.org:s3cret")
    parser.add_argument("--token")
    parser.add_argument("--lifetime", type=float, default=600)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("imap_server.py: Dovecot's master must run as root", file=sys.stderr)
        return 1
    if not os.access(DOVECOT, os.X_OK) or not os.path.exists("/usr/lib/dovecot/imap"):
        print("imap_server.py: no Dovecot IMAP (install dovecot-core and dovecot-imapd)", file=sys.stderr)
        return 1
    args.dir = os.path.realpath(args.dir)
    args.cert = os.path.realpath(args.cert)
    args.key = os.path.realpath(args.key)

    # Served from a detached child; the launcher exits once the server is up.
    return supervise_detached("imap_server.py", args.dir, 2, lambda report, log: supervise(args, report, log))


if __name__ == "__main__":
    sys.exit(main())
