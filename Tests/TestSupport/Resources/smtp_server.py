#!/usr/bin/python3
"""A real SMTP server for mailto-route's tests, on 127.0.0.1 only (Debian's aiosmtpd).

Prints the port it listens on (bound to port 0, so the kernel picks a free one) and the
pid of the server, which runs detached (so that it holds none of the test process's
descriptors) until it is sent SIGTERM or --lifetime seconds have passed. Every accepted message is saved as N.eml (the bytes as received)
and N.json (envelope) in --outdir.

  --mode plain|starttls|tls|silent
                              tls is implicit TLS (smtps); starttls offers STARTTLS;
                              silent accepts connections and never says a word
  --cert/--key                PEM files for starttls and tls
  --auth USER:PASSWORD        require AUTH (PLAIN/LOGIN) with these credentials
  --refuse ADDR               answer RCPT TO:<ADDR> with 550 (repeatable)
  --defer ADDR                answer RCPT TO:<ADDR> with 450, try again later (repeatable)
  --data-delay SECONDS        wait before answering the end of DATA (slow server)
  --data-reply REPLY          answer the end of DATA with REPLY (and keep nothing)
  --port PORT                 listen on PORT instead of a free one (a server brought back up)

Each connection accepted appends one line to connections.log in --outdir.
"""
import argparse
import asyncio
import json
import os
import signal
import socket
import ssl
import sys

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


class Handler:
    def __init__(self, outdir, refuse, delay, data_reply, defer=()):
        self.outdir = outdir
        self.data_reply = data_reply
        self.refuse = set(a.lower() for a in refuse)
        self.defer = set(a.lower() for a in defer)
        self.delay = delay
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.defer:
            return "450 4.2.0 <%s>: Recipient address deferred, try again later" % address
        if address.lower() in self.refuse:
            return "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 Ok"

    async def handle_DATA(self, server, session, envelope):
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.data_reply:
            return self.data_reply
        self.count += 1
        base = os.path.join(self.outdir, str(self.count))
        with open(base + ".eml.tmp", "wb") as f:
            f.write(envelope.original_content)
        with open(base + ".json", "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
                       "auth": session.authenticated,
                       # session.ssl is only set by STARTTLS; implicit TLS shows on the transport.
                       "tls": server.transport.get_extra_info("sslcontext") is not None}, f)
        os.rename(base + ".eml.tmp", base + ".eml")
        return "250 2.0.0 Ok: queued as TEST%d" % self.count


class Authenticator:
    def __init__(self, user, password):
        self.user = user.encode()
        self.password = password.encode()

    def __call__(self, server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and auth_data.login == self.user and auth_data.password == self.password
        return AuthResult(success=ok, handled=False)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["plain", "starttls", "tls", "silent"], default="plain")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--auth")
    parser.add_argument("--refuse", action="append", default=[])
    parser.add_argument("--defer", action="append", default=[])
    parser.add_argument("--data-delay", type=float, default=0)
    parser.add_argument("--data-reply")
    parser.add_argument("--outdir", required=True)
    parser.add_argument("--lifetime", type=float, default=600)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()

    # Tests start servers in parallel with other subprocesses. A descriptor inherited from
    # the test process (another test's pipe, or the socket Foundation watches to see a
    # child exit) would stay open as long as this server lives and hang that other test.
    # So: drop them all, then serve from a detached child, and let the launcher exit.
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(64)
    pid = os.fork()
    if pid:
        print(listener.getsockname()[1], pid, flush=True)
        os._exit(0)
    os.setsid()
    # The test process's threads block or ignore signals, and both are inherited across
    # exec: make SIGTERM end this server again.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(null, descriptor)

    context = None
    if args.mode in ("starttls", "tls"):
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
    authenticator = None
    if args.auth:
        user, password = args.auth.split(":", 1)
        authenticator = Authenticator(user, password)
    handler = Handler(args.outdir, args.refuse, args.data_delay, args.data_reply, args.defer)

    connections = os.path.join(args.outdir, "connections.log")

    class CountingSMTP(SMTP):
        def connection_made(self, transport):
            with open(connections, "a") as log:
                log.write("connection\n")
            super().connection_made(transport)

    def factory():
        return CountingSMTP(
            handler,
            hostname="mx.test",
            data_size_limit=None,
            tls_context=context if args.mode == "starttls" else None,
            require_starttls=args.mode == "starttls",
            authenticator=authenticator,
            auth_required=authenticator is not None,
            # Implicit TLS is TLS too; aiosmtpd only knows STARTTLS, so it is not asked for.
            auth_require_tls=args.mode == "starttls",
        )

    loop = asyncio.new_event_loop()
    if args.mode == "silent":
        async def mute(reader, writer):
            await asyncio.sleep(args.lifetime)
        loop.run_until_complete(asyncio.start_server(mute, sock=listener))
        loop.call_later(args.lifetime, loop.stop)
        loop.run_forever()
        return
    loop.run_until_complete(loop.create_server(factory, sock=listener, ssl=context if args.mode == "tls" else None))
    loop.call_later(args.lifetime, loop.stop)
    loop.run_forever()


if __name__ == "__main__":
    sys.exit(main())
