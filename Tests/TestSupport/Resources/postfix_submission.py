#!/usr/bin/python3
"""A throwaway Postfix submission server for mailto-route's tests, on 127.0.0.1 only.

Real Postfix (smtpd) with STARTTLS required, AUTH through a throwaway Dovecot that runs
only its auth service, and delivery into a Maildir. Everything lives in --dir: Postfix's
own main.cf/master.cf, queue and data directories, Dovecot's configuration, base_dir and
passwd-file, the logs. The system's /etc/postfix and /etc/dovecot are not used and no
system service is started or touched. Needs root (the Postfix master runs only as root)
and Debian's postfix and dovecot-core.

Prints the port Postfix listens on (a free one, chosen at start) and the pid of a
supervisor, which runs detached (so that it holds none of the test process's descriptors)
until it is sent SIGTERM or --lifetime seconds have passed. It prints them once smtpd has
greeted it and completed a STARTTLS handshake and Dovecot's auth service has answered.
On SIGTERM it kills Postfix and Dovecot and exits once not one of their processes is
left (not even a zombie), their ports closed: wait for the supervisor to be gone. (Should
it be killed with SIGKILL instead, a watcher process it leaves kills them all the same,
but then nobody waits for that.) If the server did not come up, it prints nothing and
exits 1 with the reason on stderr.

  --dir SCRATCH               where everything lives: an existing directory, its path
                              without spaces or commas, the caller's to remove afterwards
                              (it gets o+x, for Postfix's and Dovecot's users to get in)
  --cert/--key                PEM files of the server certificate (required)
  --user NAME:PASSWORD        the one account AUTH accepts (default user:password); both
                              may be UTF-8, the password may hold ':'
  --no-auth                   offer no AUTH at all (and take mail from 127.0.0.1 without)
  --size-limit BYTES          message_size_limit, announced as SIZE in EHLO (default
                              8000000; 0 is no limit)
  --refuse ADDR               answer RCPT TO:<ADDR> with 550 (repeatable)
  --defer ADDR                answer RCPT TO:<ADDR> with 450, try again later (repeatable)
  --lifetime SECONDS          stop by itself after this long (default 600)

What a client meets:
  - Before STARTTLS only EHLO/HELO, STARTTLS, NOOP and QUIT: the rest (RSET included) is
    answered "530 5.7.0 Must issue a STARTTLS command first", and AUTH is not in EHLO.
  - After STARTTLS, EHLO shows PIPELINING, SIZE <limit> (bare SIZE for 0), ETRN,
    AUTH PLAIN LOGIN, ENHANCEDSTATUSCODES, 8BITMIME, DSN, SMTPUTF8, CHUNKING (no AUTH with
    --no-auth).
  - A wrong password: "535 5.7.8 Error: authentication failed: ..." (after 0.5 s: Dovecot
    answers failures on a timer). No delay grows with repeated failures.
  - Without AUTH (and without --no-auth), RCPT is answered
    "554 5.7.1 <ADDR>: Recipient address rejected: Access denied".
  - --defer ADDR: "450 4.2.0 <ADDR>: Recipient address rejected: Try again later";
    --refuse ADDR: "550 5.1.1 <ADDR>: Recipient address rejected: User unknown";
    both regardless of AUTH, ADDR compared without regard to case.
  - MAIL FROM with SIZE= above the limit: "552 5.3.4 Message size exceeds fixed limit";
    a larger message without SIZE=: "552 5.3.4 Error: message file too big" after DATA.

Every accepted message, to any address in any domain, is delivered by Postfix's virtual(8)
into SCRATCH/Maildir/new/, one file per recipient, usually within a tenth of a second of
the end of DATA. Each file is the message as received, headers left as the client sent
them (no Date, Message-ID or From added, no address rewritten), after the lines Postfix
puts on top: Return-Path, X-Original-To, Delivered-To and Received. The files belong to the
owner of SCRATCH, or to nobody if that is root, mode 0600. What Postfix itself would mail
back (bounces, DSN success reports) is discarded, so that Maildir holds only what was
submitted.

Logs: SCRATCH/postfix.log (the mail log), SCRATCH/dovecot.log, SCRATCH/supervisor.log.
"""
import argparse
import base64
import ctypes
import grp
import os
import pwd
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from detach import free_port, supervise_detached  # noqa: E402

POSTFIX_DAEMONS = "/usr/lib/postfix/sbin"
DOVECOT = "/usr/sbin/dovecot"
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def write(path, text, mode=0o644):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)
    # Postfix rereads a main.cf or texthash table (in steps of 0.3 s) until it is a second
    # older than when it started reading, lest it be half written: date ours back.
    past = time.time() - 60
    os.utime(path, (past, past))


def make_dir(path, owner=0, group=0, mode=0o755):
    os.makedirs(path, exist_ok=True)
    os.chown(path, owner, group)
    os.chmod(path, mode)


def listener_inode(port):
    """The inode of the socket that listens on 127.0.0.1:port, or None (found without
    connecting, which would start an smtpd)."""
    wanted = "0100007F:%04X" % port
    try:
        with open("/proc/net/tcp") as f:
            next(f)
            for line in f:
                fields = line.split()
                if fields[1] == wanted and fields[3] == "0A":
                    return fields[9]
    except OSError:
        pass
    return None


def holds_socket(pid, inode):
    """Whether process pid has the socket with this inode open."""
    directory = "/proc/%d/fd" % pid
    try:
        names = os.listdir(directory)
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(os.path.join(directory, name)) == "socket:[%s]" % inode:
                return True
        except OSError:
            continue
    return False


def dovecot_quote(value):
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


class Instance:
    """The files of one Postfix + Dovecot pair under --dir."""

    def __init__(self, args):
        self.args = args
        self.dir = os.path.realpath(args.dir)
        self.config = os.path.join(self.dir, "postfix")
        self.data = os.path.join(self.dir, "data")
        self.dovecot = os.path.join(self.dir, "dovecot")
        self.maildir = os.path.join(self.dir, "Maildir")
        # A Unix socket's path has at most 107 bytes, and both masters bind theirs by full
        # path (Postfix's log socket in the queue directory, Dovecot's in its base_dir):
        # a deep --dir gets those two in a short directory in /tmp (removed at the end).
        self.own_run = None
        if len(self.dir) <= 60:
            self.queue = os.path.join(self.dir, "queue")
            self.run = os.path.join(self.dovecot, "run")
        else:
            self.own_run = tempfile.mkdtemp(prefix="pfsub-", dir="/tmp")
            os.chmod(self.own_run, 0o755)
            self.queue = os.path.join(self.own_run, "queue")
            self.run = os.path.join(self.own_run, "run")
        # (Postfix connects by the full path, Dovecot's listener is named within base_dir.)
        self.auth_socket = os.path.join(self.run, "auth-postfix")

    def create(self, port):
        args = self.args
        postfix = pwd.getpwnam("postfix")
        postdrop = grp.getgrnam("postdrop").gr_gid
        # Postfix's smtpd (user postfix) reaches Dovecot's socket by its full path, and
        # virtual(8) writes the Maildir as the user below: the way in must be open to them.
        mode = os.stat(self.dir).st_mode
        if mode & 0o001 == 0:
            os.chmod(self.dir, (mode & 0o7777) | 0o001)
        # Mail is delivered as the owner of --dir, or as nobody if that is root: virtual(8)
        # delivers as no uid below 1.
        owner = os.stat(self.dir)
        uid, gid = owner.st_uid, owner.st_gid
        if uid == 0:
            nobody = pwd.getpwnam("nobody")
            uid, gid = nobody.pw_uid, nobody.pw_gid

        make_dir(self.config)
        make_dir(self.queue)
        for name in ("active", "bounce", "corrupt", "defer", "deferred", "flush", "hold",
                     "incoming", "private", "saved", "trace"):
            make_dir(os.path.join(self.queue, name), postfix.pw_uid, postfix.pw_gid, 0o700)
        make_dir(os.path.join(self.queue, "maildrop"), postfix.pw_uid, postdrop, 0o1730)
        make_dir(os.path.join(self.queue, "public"), postfix.pw_uid, postdrop, 0o2710)
        make_dir(os.path.join(self.queue, "pid"))
        make_dir(self.data, postfix.pw_uid, postfix.pw_gid, 0o700)
        # virtual(8) writes the Maildir as that user.
        for sub in ("", "tmp", "new", "cur"):
            make_dir(os.path.join(self.maildir, sub), uid, gid, 0o755)

        access = os.path.join(self.config, "recipient_access")
        lines = []
        # smtpd puts "<ADDR>: Recipient address rejected: " before the text.
        for address in args.defer:
            lines.append("%s 450 4.2.0 Try again later" % address.lower())
        for address in args.refuse:
            lines.append("%s 550 5.1.1 User unknown" % address.lower())
        write(access, "".join(line + "\n" for line in lines))

        if args.no_auth:
            relay = "permit_mynetworks, reject"
            sasl = ["smtpd_sasl_auth_enable = no"]
        else:
            relay = "permit_sasl_authenticated, reject"
            sasl = [
                "smtpd_sasl_auth_enable = yes",
                "smtpd_sasl_type = dovecot",
                "smtpd_sasl_path = " + self.auth_socket,
                "smtpd_sasl_security_options = noanonymous",
                "smtpd_sasl_tls_security_options = noanonymous",
                "smtpd_tls_auth_only = yes",
                "broken_sasl_auth_clients = no",
            ]
        main = [
            "compatibility_level = 3.6",
            "queue_directory = " + self.queue,
            "data_directory = " + self.data,
            "mail_owner = postfix",
            "setgid_group = postdrop",
            # postlogd writes to the master's stdout, SCRATCH/postfix.log (a path in
            # maillog_file fails when long: the master dies on a deep --dir).
            "maillog_file = /dev/stdout",
            "inet_interfaces = 127.0.0.1",
            "inet_protocols = ipv4",
            # Names set, so that nothing is looked up; nothing is local, nothing relayed.
            "myhostname = mx.test",
            "mydomain = test",
            "myorigin = $myhostname",
            "mydestination =",
            "mynetworks = 127.0.0.0/8",
            "relay_domains =",
            "alias_maps =",
            "alias_database =",
            "local_recipient_maps =",
            "smtpd_peername_lookup = no",
            "smtp_dns_support_level = disabled",
            "smtp_host_lookup = native",
            "lmtp_host_lookup = native",
            "biff = no",
            "append_dot_mydomain = no",
            "smtputf8_enable = yes",
            "message_size_limit = %d" % args.size_limit,
            "mailbox_size_limit = 0",
            "virtual_mailbox_limit = 0",
            # Leave the headers as the client sent them: no Date, Message-ID or From added
            # when missing, no address in them rewritten (a remote client's treatment).
            "local_header_rewrite_clients =",
            "smtpd_banner = $myhostname ESMTP",
            "smtpd_error_sleep_time = 0",
            "disable_vrfy_command = yes",
            "smtpd_tls_security_level = encrypt",
            "smtpd_tls_chain_files = %s, %s" % (args.key, args.cert),
            "smtpd_tls_loglevel = 1",
            "smtpd_tls_received_header = yes",
            "tls_random_source = dev:/dev/urandom",
            "smtpd_relay_restrictions = " + relay,
            "smtpd_recipient_restrictions = check_recipient_access texthash:" + access,
        ] + sasl + [
            # Every domain is a virtual mailbox domain, every address the one Maildir.
            "virtual_mailbox_domains = static:all",
            "virtual_mailbox_base = " + self.dir,
            "virtual_mailbox_maps = static:Maildir/",
            "virtual_minimum_uid = %d" % min(uid, 100),
            "virtual_uid_maps = static:%d" % uid,
            "virtual_gid_maps = static:%d" % gid,
            "default_transport = error:this test server relays nothing",
            "relay_transport = error:this test server relays nothing",
            "notify_classes =",
            # (Without this, header_checks skip what Postfix makes itself: see "notices".)
            "internal_mail_filter_classes = bounce, notify",
            "delay_warning_time = 0",
        ]
        write(os.path.join(self.config, "main.cf"), "".join(line + "\n" for line in main))

        # No chroot anywhere (the socket paths are those of the real file system).
        services = [
            "127.0.0.1:%d inet n - n - - smtpd" % port,
            "cleanup unix n - n - 0 cleanup",
            # bounce(8) hands what Postfix would mail back to a cleanup that drops it.
            "notices unix n - n - 0 cleanup -o header_checks=static:DISCARD",
            "qmgr unix n - n 300 1 qmgr",
            "tlsmgr unix - - n 1000? 1 tlsmgr",
            "rewrite unix - - n - - trivial-rewrite",
            "bounce unix - - n - 0 bounce -o cleanup_service_name=notices",
            "defer unix - - n - 0 bounce -o cleanup_service_name=notices",
            "trace unix - - n - 0 bounce -o cleanup_service_name=notices",
            "verify unix - - n - 1 verify",
            "flush unix n - n 1000? 0 flush",
            "proxymap unix - - n - - proxymap",
            "error unix - - n - - error",
            "retry unix - - n - - error",
            "discard unix - - n - - discard",
            "virtual unix - n n - - virtual",
            "anvil unix - - n - 1 anvil",
            "scache unix - - n - 1 scache",
            "postlog unix-dgram n - n - 1 postlogd",
        ]
        write(os.path.join(self.config, "master.cf"), "".join(line + "\n" for line in services))

        if args.no_auth:
            return
        make_dir(self.dovecot)
        make_dir(os.path.join(self.dovecot, "state"))
        make_dir(self.run)
        name, password = args.user.split(":", 1)
        passwd = os.path.join(self.dovecot, "passwd")
        # Base64, so that a password may hold any byte, ':' included.
        encoded = base64.b64encode(password.encode()).decode()
        write(passwd, "%s:{PLAIN.b64}%s\n" % (name, encoded), 0o600)
        conf = """\
base_dir = {run}
state_dir = {state}
instance_name = pfsub-{port}
protocols =
listen = 127.0.0.1
ssl = no
log_path = {log}
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
auth_username_chars =
auth_username_format = %u
auth_verbose = yes
passdb {{
  driver = passwd-file
  args = {passwd}
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={home} allow_all_users=yes
}}
service auth {{
  user = root
  unix_listener {socket} {{
    mode = 0660
    user = postfix
    group = postfix
  }}
}}
service auth-worker {{
  user = root
}}
# No growing delay after failed logins from 127.0.0.1 (Dovecot's auth penalty).
login_trusted_networks = 127.0.0.0/8
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
""".format(run=dovecot_quote(self.run), state=dovecot_quote(os.path.join(self.dovecot, "state")),
           port=port, log=dovecot_quote(os.path.join(self.dir, "dovecot.log")),
           passwd=dovecot_quote(passwd), uid=uid, gid=gid, home=dovecot_quote(self.maildir),
           socket=os.path.basename(self.auth_socket))
        write(os.path.join(self.dovecot, "dovecot.conf"), conf)


def die_with_parent():
    """In a child of the supervisor: get SIGTERM should the supervisor die. Dovecot keeps
    this; Postfix's master loses it when it changes its effective uid (see watch)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def process_group_members(pgid):
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        # state, ppid, pgrp: a zombie does not count (it holds no socket).
        if fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            members.append(int(entry))
    return members


class Stop(Exception):
    pass


class PortTaken(Exception):
    pass


def watch(groups):
    """Fork a watcher that kills the process groups once this supervisor is gone, however
    it went (SIGKILL included): Postfix's master keeps no parent-death signal."""
    alive, gone = os.pipe()
    pid = os.fork()
    if pid:
        os.close(alive)
        return pid
    # Hold nothing but its end of the pipe (above all not the launcher's report pipe).
    os.closerange(3, alive)
    os.closerange(alive + 1, os.sysconf("SC_OPEN_MAX"))
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    try:
        # Nothing ever comes down the pipe: read returns when its one writer is gone.
        os.read(alive, 1)
        for _ in range(300):
            if not any(process_group_members(pgid) for pgid in groups):
                break
            for pgid in groups:
                try:
                    os.killpg(pgid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)
    finally:
        os._exit(0)


def smtp_starts_tls(port):
    """Whether an smtpd on port greets and completes STARTTLS (if it could not load the
    certificate and key, it still offers STARTTLS but answers it with 454)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
            replies = connection.makefile("rb")

            def reply():
                while True:
                    line = replies.readline()
                    if line[3:4] != b"-":
                        return line[:3]

            if reply() != b"220":
                return False
            connection.sendall(b"EHLO probe.test\r\n")
            if reply() != b"250":
                return False
            connection.sendall(b"STARTTLS\r\n")
            if reply() != b"220":
                return False
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            with context.wrap_socket(connection) as tls:
                tls.sendall(b"QUIT\r\n")
                tls.recv(512)
            return True
    except (OSError, ssl.SSLError):
        return False


def auth_answers(path):
    """Whether Dovecot's auth service answers on path (its handshake ends in DONE)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(5)
            connection.connect(path)
            connection.sendall(b"VERSION\t1\t2\nCPID\t%d\n" % os.getpid())
            received = b""
            while b"DONE\n" not in received:
                chunk = connection.recv(4096)
                if not chunk:
                    return False
                received += chunk
            return True
    except OSError:
        return False


def supervise(args, instance, report, log):
    """Start Postfix (and Dovecot), tell `report` the port or the failure, wait, stop."""
    started = time.monotonic()
    children = []  # (name, Popen), each the leader of a process group
    watcher = [None]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

    def note(text):
        log.write("%.3f %s\n" % (time.monotonic() - started, text))
        log.flush()

    def kill_all():
        # Nothing in a throwaway instance is worth a graceful stop (the Postfix master
        # alone takes a second over it): kill the process groups of both masters, which
        # hold all their daemons. Their daemons, orphaned, become our children (we are
        # a subreaper): reap them all, so that not even a zombie is left.
        if watcher[0]:
            os.kill(watcher[0], signal.SIGKILL)
            watcher[0] = None
        groups = [child.pid for name, child in children]
        deadline = time.monotonic() + 5
        while True:
            for pgid in groups:
                try:
                    os.killpg(pgid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                if time.monotonic() > deadline:
                    left = [p for g in groups for p in process_group_members(g)]
                    note("gave up waiting for processes %s" % left)
                    break
                time.sleep(0.002)
        for name, child in children:
            child.returncode = -signal.SIGKILL
        children.clear()

    def start(port):
        """Start both on port; None once they answer, else why not."""
        instance.create(port)
        environment = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "TZ": "UTC"}
        if not args.no_auth:
            children.append(("dovecot", subprocess.Popen(
                [DOVECOT, "-F", "-c", os.path.join(instance.dovecot, "dovecot.conf")],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=environment,
                start_new_session=True, preexec_fn=die_with_parent)))
        # -d: stay in the foreground as our child; -e: exit after that long whatever
        # happens to us. Its postlogd writes the mail log to its stdout (maillog_file).
        with open(os.path.join(instance.dir, "postfix.log"), "ab") as maillog:
            children.append(("master", subprocess.Popen(
                [os.path.join(POSTFIX_DAEMONS, "master"), "-d", "-c", instance.config,
                 "-e", str(int(args.lifetime) + 30)],
                stdin=subprocess.DEVNULL, stdout=maillog, stderr=log,
                env=dict(environment, MAIL_CONFIG=instance.config),
                start_new_session=True, preexec_fn=die_with_parent)))
        deadline = time.monotonic() + 15
        master = children[-1][1].pid

        def master_listens():
            # The port was free when chosen, and is taken by another program if that bound
            # it first (a test server given a free port by the kernel meanwhile): only the
            # master's own socket counts, or the tests would talk to that other server.
            inode = listener_inode(port)
            if inode is not None and not holds_socket(master, inode):
                raise PortTaken()
            return inode is not None

        waiting = {"postfix listening": master_listens}
        if not args.no_auth:
            waiting["dovecot listening"] = lambda: os.path.exists(instance.auth_socket)
        while waiting:
            for what, ready in list(waiting.items()):
                try:
                    if ready():
                        note(what)
                        del waiting[what]
                except PortTaken:
                    return "port %d is another program's" % port
            for name, child in children:
                if child.poll() is not None:
                    return "%s exited with status %s" % (name, child.returncode)
            if time.monotonic() > deadline:
                return "timed out waiting for " + ", ".join(waiting)
            time.sleep(0.005)
        if not smtp_starts_tls(port):
            return "smtpd did not greet or could not start TLS (see postfix.log)"
        note("smtpd starts TLS")
        if not args.no_auth:
            if not auth_answers(instance.auth_socket):
                return "Dovecot's auth service did not answer (see dovecot.log)"
            note("dovecot auth answers")
        return None

    def on_term(signum, frame):
        raise Stop()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, on_term)
    status = 0
    try:
        for attempt in range(3):
            port = free_port()
            failure = start(port)
            if failure is None:
                break
            note("attempt %d on port %d failed: %s" % (attempt + 1, port, failure))
            kill_all()
            # Only another program taking the port between our look and the master's
            # bind is worth another try.
            if not in_use(port):
                break
        if failure is not None:
            status = 1
            report.write(("error: %s; logs in %s\n" % (failure, instance.dir)).encode())
            return status
        note("up on port %d" % port)
        watcher[0] = watch([child.pid for name, child in children])
        report.write(("%d\n" % port).encode())
        report.close()
        end = time.monotonic() + args.lifetime
        while time.monotonic() < end:
            time.sleep(min(0.5, max(0.0, end - time.monotonic())))
            for name, child in children:
                if child.poll() is not None:
                    note("%s exited with status %s" % (name, child.returncode))
                    raise Stop()
        note("lifetime over")
    except Stop:
        note("stopping")
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        if not report.closed:
            report.close()
        kill_all()
        if instance.own_run:
            shutil.rmtree(instance.own_run, ignore_errors=True)
        note("stopped")
    return status


def in_use(port):
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.bind(("127.0.0.1", port))
        return False
    except OSError:
        return True
    finally:
        probe.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--user", default="user:password")
    parser.add_argument("--no-auth", action="store_true")
    parser.add_argument("--size-limit", type=int, default=8000000)
    parser.add_argument("--refuse", action="append", default=[])
    parser.add_argument("--defer", action="append", default=[])
    parser.add_argument("--lifetime", type=float, default=600)
    args = parser.parse_args()
    if ":" not in args.user:
        parser.error("--user wants NAME:PASSWORD")
    if os.geteuid() != 0:
        print("postfix_submission.py: the Postfix master must run as root", file=sys.stderr)
        return 1
    for tool in (os.path.join(POSTFIX_DAEMONS, "master"),) + (() if args.no_auth else (DOVECOT,)):
        if not os.access(tool, os.X_OK):
            print("postfix_submission.py: no %s (install postfix and dovecot-core)" % tool,
                  file=sys.stderr)
            return 1
    for pem in (args.cert, args.key):
        if not os.access(pem, os.R_OK):
            print("postfix_submission.py: cannot read %s" % pem, file=sys.stderr)
            return 1
    args.cert = os.path.realpath(args.cert)
    args.key = os.path.realpath(args.key)
    if not os.path.isdir(args.dir):
        print("postfix_submission.py: no directory %s" % args.dir, file=sys.stderr)
        return 1

    # Served from a detached child; the launcher exits once the server is up.
    return supervise_detached("postfix_submission.py", args.dir, 1,
                              lambda report, log: supervise(args, Instance(args), report, log))


if __name__ == "__main__":
    sys.exit(main())
